import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDEmbed
import XKCDIndexer
import XKCDKit

/// `xkcd-search index`: the only executable that links the network stack and the HTML parser.
/// `xkcd-search` checks the arguments, then runs this one with them.
struct XKCDSearchIndex: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xkcd-search index",
        abstract: IndexOptions.abstract,
        discussion: IndexOptions.discussion,
        version: "0.1.0")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: IndexOptions

    func run() async throws {
        do {
            try await index()
        } catch let error where !(error is ExitCode) {
            Terminal.exit(Self.self, withError: error)
        }
    }

    private func index() async throws {
        let logger = global.makeLogger()
        // Held until the run ends: a second run stops at once, a reader knows one is building.
        let lock = try ComicDatabase.lockForIndexing(at: global.paths.databasePath)
        defer { withExtendedLifetime(lock) {} }
        let database = try global.openDatabase(creating: true, connections: .pool)
        let cache = RawCache(directory: global.paths.cacheDirectory.appendingPathComponent("raw"))
        let source: any ComicSource
        var mode = Indexer.Mode.incremental
        if let mirror = options.mirror {
            source = MirrorComicSource(directory: URL(fileURLWithPath: mirror))
            if options.rebuild { mode = .rebuild(nil) }
        } else if options.rebuild {
            source = CachedComicSource(cache: cache)
            mode = .rebuild(IndexPlan(comics: cache.storedComicIDs(), explanations: cache.storedExplanationIDs()))
        } else {
            var configuration = HTTPComicSource.Configuration()
            configuration.xkcdBaseURL = URL(string: options.xkcdURL)!
            configuration.explainBaseURL = URL(string: options.explainURL)!
            configuration.maxConcurrentRequestsPerHost = options.concurrency
            configuration.requestTimeout = .milliseconds(Int(options.timeout * 1000))
            configuration.requestDeadline = .milliseconds(Int(options.timeout * 4000))
            source = CachingComicSource(
                upstream: HTTPComicSource(configuration: configuration, logger: logger), cache: cache, logger: logger)
            _ = cache.removeLeftoverTemporaryFiles()
        }
        // Explanations parsed again change the text the model reads, as a fetch does.
        var textChangedBeforeTheRun = false
        if case .incremental = mode, try database.explanationsNeedParsingAgain() {
            textChangedBeforeTheRun = true
            do {
                try await parseExplanationsAgain(database, cache: cache)
            } catch {
                Terminal.printError("could not parse the stored explanations again (\(error)); 'xkcd-search index --rebuild' will")
            }
        }
        let indexer = Indexer(
            database: database, source: source, logger: logger,
            width: options.mirror == nil ? options.concurrency * 2 : 4)
        let bar = Terminal.isStandardErrorATerminal && !options.json ? ProgressBar(label: "indexing") : nil
        // Fetching, then embedding, then images: Ctrl-C stops whichever is running, and each
        // keeps what it stored; a second one ends the process at once.
        let interrupts = Interrupts()
        let (vectorsFile, drawsBars, embeds, runMode) = (options.vectors, bar != nil, !options.noEmbed, mode)
        let textChanged = textChangedBeforeTheRun
        let outcome: (IndexReport, VectorReport?)?
        do {
            outcome = try await interrupts.run { () async throws -> (IndexReport, VectorReport?) in
                let report = try await indexer.run(mode: runMode) { progress in
                    bar?.update(completed: progress.completed, total: progress.total, failed: progress.failed)
                }
                bar?.finish()
                if case .rebuild = runMode, !report.isInterrupted {
                    try database.markExplanationsParsed()
                    try database.vacuum()
                }
                guard embeds, !report.isInterrupted, !Task.isCancelled else { return (report, nil) }
                var textUnchanged = !textChanged && report.comicsFetched == 0 && report.explanationsChanged == 0
                if case .rebuild = runMode { textUnchanged = false }
                return (report, try await Self.embed(
                    database, importingFrom: vectorsFile, textUnchanged: textUnchanged, drawingABar: drawsBars))
            }
        } catch where interrupts.happened {
            outcome = nil  // before the first comic was asked for
        }
        bar?.finish()
        if let vectors = outcome?.1 {
            global.log("vectors: \(vectors.embedded) embedded, \(vectors.imported) imported, \(vectors.current) current; comic texts read: \(vectors.textsRead)")
        }
        guard let (report, vectors) = outcome, !report.isInterrupted, vectors?.isInterrupted != true else {
            let kept = try database.statistics().comics
            Terminal.printError("interrupted: the index keeps its \(kept) comics, all searchable; 'xkcd-search index' resumes from there")
            throw ExitCode(130)
        }
        print(options.json ? try JSONDocument.line(IndexSummary(report, vectors: vectors, database: database)) : IndexSummary.text(report, vectors: vectors))
        let images = options.images ? try await fetchImages(database, interrupts: interrupts) : nil
        if !report.failures.isEmpty || images?.failures.isEmpty == false { throw ExitCode(3) }
    }

    /// Brings the comics' sentence vectors up to date; without a usable model the index is
    /// searched by words alone, which one line says.
    private static func embed(
        _ database: ComicDatabase, importingFrom vectors: String?, textUnchanged: Bool, drawingABar: Bool
    ) async throws -> VectorReport? {
        let encoder: SentenceEncoder
        switch SentenceModel.located().encoder() {
        case .success(let loaded): encoder = loaded
        case .failure(let problem):
            Terminal.printError(problem.description)
            return nil
        }
        let bar = drawingABar ? ProgressBar(label: "embedding") : nil
        let report = try await VectorIndexer(database: database, encoder: encoder).run(
            importingFrom: vectors, textUnchanged: textUnchanged
        ) { progress in
            bar?.update(completed: progress.completed, total: progress.total, failed: progress.failed)
        }
        bar?.finish()
        if let problem = report.unusableFile {
            Terminal.printError("--vectors not used: \(problem); the comics were embedded by the model instead")
        }
        return report
    }

    /// Parses again, with no requests, the explanations an earlier version stored without what
    /// this one keeps of them (the links between comics): from the mirror, or from the kept
    /// responses. The run that follows fetches what is new as usual.
    private func parseExplanationsAgain(_ database: ComicDatabase, cache: RawCache) async throws {
        let local: any ComicSource
        let ids: [Int]
        if let mirror = options.mirror {
            local = MirrorComicSource(directory: URL(fileURLWithPath: mirror))
            ids = try database.explainedComicIDs()
        } else {
            local = CachedComicSource(cache: cache)
            ids = Array(Set(try database.explainedComicIDs()).intersection(cache.storedExplanationIDs())).sorted()
        }
        if !ids.isEmpty {
            Terminal.printError("parsing the \(ids.count) stored explanations again for the links between comics")
            let indexer = Indexer(database: database, source: local, logger: global.makeLogger(), width: 4)
            _ = try await indexer.run(mode: .rebuild(IndexPlan(comics: [], explanations: ids)))
        }
        try database.markExplanationsParsed()
    }
}

/// The summary of a run, as text or JSON.
struct IndexSummary: Encodable {
    struct NewComic: Encodable { var num: Int; var title: String }
    struct Failure: Encodable { var num: Int; var what: String; var reason: String }
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

    init(_ report: IndexReport, vectors: VectorReport?, database: ComicDatabase) {
        embedded = vectors?.embedded
        vectorsImported = vectors?.imported
        vectorRowsRefused = vectors?.refusedRows
        embeddingFailed = vectors?.failed
        latest = report.latest
        comicsFetched = report.comicsFetched
        explanationsFetched = report.explanationsFetched
        new = report.newComics.map { NewComic(num: $0.id, title: $0.title) }
        failed = report.failures.map { Failure(num: $0.id, what: $0.resource, reason: $0.message) }
        seconds = JSONDocument.rounded(seconds: report.elapsed.seconds)
        self.database = database.path ?? ":memory:"
    }

    /// One line: what was fetched, the new comics, and every failure with its reason.
    static func text(_ report: IndexReport, vectors: VectorReport?) -> String {
        var parts = [String(
            format: "indexed up to #%d: %d comics and %d explanations fetched in %.1f s",
            report.latest, report.comicsFetched, report.explanationsFetched, report.elapsed.seconds)]
        if report.newComics.isEmpty {
            parts.append("no new comics")
        } else {
            let shown = report.newComics.suffix(20).map { "#\($0.id) \(sanitized($0.title))" }
            let earlier = report.newComics.count > 20 ? " (and \(report.newComics.count - 20) earlier)" : ""
            parts.append("new: " + shown.joined(separator: ", ") + earlier)
        }
        if let vectors, vectors.embedded + vectors.imported > 0 {
            parts.append("\(vectors.embedded + vectors.imported) comics embedded for search by meaning" + (vectors.imported > 0 ? " (\(vectors.imported) from precomputed vectors)" : ""))
        }
        if let vectors, vectors.refusedRows > 0 {
            parts.append("\(vectors.refusedRows) rows of the vectors file left out (no vector of this model: a wrong type or length, not of unit length, or given twice)")
        }
        if let vectors, vectors.failed > 0 {
            parts.append("\(vectors.failed) comics not embedded: the model made no usable vector of them; its weights are damaged")
        }
        if !report.failures.isEmpty {
            let failures = report.failures.map { "#\($0.id) \($0.resource): \(sanitized($0.message))" }
            parts.append("\(report.failures.count) failed, retried by the next run: " + failures.joined(separator: "; "))
        }
        return parts.joined(separator: "; ")
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
