import FoundationEssentials
import XKCDKit
import XKCDStore

/// What `index --json` prints: the summary of a run.
public struct IndexSummaryDocument: Encodable, Sendable {
    struct NewComic: Encodable, Sendable {
        var num: Int
        var title: String
    }
    struct Failure: Encodable, Sendable {
        var num: Int
        var what: String
        var reason: String
    }
    var latest: Int
    var comicsFetched: Int
    var explanationsFetched: Int
    var new: [NewComic]
    var failed: [Failure]
    var seconds: Double
    var database: String
    /// Comics embedded by the model, and comics whose vectors came from `--vectors`; null
    /// without a model or with `--no-embed`.
    @NullWhenMissing var embedded: Int?
    @NullWhenMissing var vectorsImported: Int?
    /// Rows of the `--vectors` file left out as no vector of the model, and comics the model
    /// made no usable vector of; null without a model or with `--no-embed`.
    @NullWhenMissing var vectorRowsRefused: Int?
    @NullWhenMissing var embeddingFailed: Int?
    /// Passages people linked comics to, and situations written for the comics, of
    /// `--linked-passages`, embedded in this run; null without a model or with `--no-embed`.
    @NullWhenMissing var linkedPassagesEmbedded: Int?
    @NullWhenMissing var writtenSituationsEmbedded: Int?

    public init(_ report: IndexReport, vectors: VectorReport?, database: ComicDatabase) {
        embedded = vectors?.embedded
        vectorsImported = vectors?.imported
        vectorRowsRefused = vectors?.refusedRows
        embeddingFailed = vectors?.failed
        linkedPassagesEmbedded = vectors?.linkedPassagesEmbedded
        writtenSituationsEmbedded = vectors?.writtenSituationsEmbedded
        latest = report.latest
        comicsFetched = report.comicsFetched
        explanationsFetched = report.explanationsFetched
        new = report.newComics.map { NewComic(num: $0.id, title: $0.title) }
        failed = report.failures.map { Failure(num: $0.id, what: $0.resource, reason: $0.message) }
        seconds = JSONDocument.rounded(seconds: report.elapsed.seconds)
        self.database = database.path ?? ":memory:"
    }
}
