import Foundation
import GRDB
import Logging
import Testing
import XKCDEmbed
import XKCDIndexer
import _XKCDTestSupport

@testable import XKCDKit
@testable import XKCDStore

/// The real model, found as the executables find it. `make test` runs `make model` first, so a
/// missing model fails these tests; it never skips them.
func realSentenceModel() throws -> SentenceModel {
    let directory = try #require(
        SentenceEncoder.locateModel(), "no sentence model found: run `make model` (or set XKCD_SEARCH_MODEL)")
    return SentenceModel(directory: directory)
}

/// The fixture subset indexed and embedded by the real model, built once: the tests only read it.
///
/// The tests embed on one thread (`width: 1`): they run beside every other suite on two cores,
/// some of which time requests.
private let embeddedFixtureIndex = Task { () throws -> (ComicDatabase, SentenceModel) in
    let database = try await makeFixtureIndex()
    let model = try realSentenceModel()
    _ = try await VectorIndexer(database: database, encoder: model.encoder().get(), width: 1).run()
    return (database, model)
}

private func engine() async throws -> SearchEngine {
    let (database, model) = try await embeddedFixtureIndex.value
    return SearchEngine(database: database, sentenceModel: model)
}

@Suite("Search by meaning on the fixture subset")
struct MeaningSearchTests {
    /// Descriptions in other words than their comic's: the words alone miss it, the meaning
    /// finds it.
    @Test(arguments: [
        ("youngster whose moniker erases pupil records", 327),
        ("crimson stoplight that never budges", 1116),
    ])
    func aDescriptionTheWordsMissFindsItsComic(description: String, comic: Int) async throws {
        let (database, _) = try await embeddedFixtureIndex.value
        let byWords = try SearchEngine(database: database).search(description, limit: 3).results.map(\.id)
        #expect(!byWords.contains(comic), "the words alone found it: \(byWords)")
        let results = try await engine().search(description, limit: 3)
        #expect(results.semanticProblem == nil)
        #expect(results.results.map(\.id).contains(comic), "\(results.results.map(\.id))")
    }

    /// A sentence with quoted speech is a description too: the model is asked for it.
    @Test func quotedSpeechInASentenceIsRankedByMeaning() async throws {
        let (database, _) = try await embeddedFixtureIndex.value
        let query = #"a comic where the kid says "i hope you learned" about the database"#
        let missing = SentenceModel(directory: URL(fileURLWithPath: "/nonexistent/model"))
        #expect(try SearchEngine(database: database, sentenceModel: missing).search(query).semanticProblem != nil)
        let results = try await engine().search(query, limit: 3)
        #expect(results.semanticProblem == nil)
        #expect(results.results.first?.id == 327, "\(results.results.map(\.id))")
    }

    @Test(arguments: [
        ("exploits of a mom", 327),
        ("password strength", 936),
        ("i hope you've learned to sanitize your database inputs", 327),
        ("correct horse battery staple", 936),
    ])
    func exactTitlesAndLinesStayFirst(query: String, comic: Int) async throws {
        let (database, _) = try await embeddedFixtureIndex.value
        let results = try await engine().search(query, limit: 5)
        #expect(results.results.first?.id == comic, "\(results.results.map(\.id))")
        #expect(results.results.first?.id == (try SearchEngine(database: database).search(query).results.first?.id))
        #expect(results.semanticProblem == nil)
    }

    @Test func filtersBindComicsFoundByMeaning() async throws {
        let description = "a guy asks his buddy to fix him lunch and only obeys once he invokes superuser privileges"
        let inRange = try await engine().search(description + " num:1..100", limit: 20).results
        #expect(!inRange.isEmpty)
        #expect(inRange.allSatisfy { (1...100).contains($0.id) }, "\(inRange.map(\.id))")
        let before2010 = try await engine().search(description + " before:2010", limit: 20).results
        #expect(!before2010.isEmpty)
        #expect(before2010.allSatisfy { $0.date.year < 2010 }, "\(before2010.map(\.id))")
    }

    /// An exclusion leaves out a comic that only the meaning brought in.
    @Test func exclusionsBindComicsFoundByMeaning() async throws {
        let query = "zygote xylophonist quokka"
        let found = try #require(try await engine().search(query, limit: 10).results.first)
        #expect(found.match == .similar)
        let word = try #require(
            found.title.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init).first { $0.count >= 4 },
            "#\(found.id) '\(found.title)' has no word to exclude it by")
        let excluded = try await engine().search(query + " -\(word)", limit: 10).results.map(\.id)
        #expect(!excluded.isEmpty, "#\(found.id) -\(word)")
        #expect(!excluded.contains(found.id), "#\(found.id) -\(word): \(excluded)")
    }

    /// Words no comic of the subset holds: whatever is found, is found by meaning and says so.
    @Test func aComicFoundByMeaningAloneIsMarkedSimilar() async throws {
        let (database, _) = try await embeddedFixtureIndex.value
        let query = "zygote xylophonist quokka"
        #expect(try SearchEngine(database: database).search(query).results.isEmpty)
        let results = try await engine().search(query, limit: 10).results
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { $0.match == .similar })
    }

    @Test func shortQueriesAndNumbersNeverLoadTheModel() async throws {
        let (database, _) = try await embeddedFixtureIndex.value
        // A model directory that does not exist: loading it would be reported.
        let missing = SentenceModel(directory: URL(fileURLWithPath: "/nonexistent/model"))
        let engine = SearchEngine(database: database, sentenceModel: missing)
        for query in ["327", "bobby tables", "sandwich num:100..200", "title:\"password strength\" xkcd comic"] {
            #expect(try engine.search(query).semanticProblem == nil, "\(query)")
        }
    }

    /// A description the words alone do not settle, so that the model is asked for.
    static let description = "a guy asks his buddy to fix him lunch and only obeys once he invokes superuser privileges"

    @Test func aMissingModelSearchesByWordsAndSaysSo() async throws {
        let (database, _) = try await embeddedFixtureIndex.value
        let query = Self.description
        let lexical = try SearchEngine(database: database).search(query)
        for model in [
            SentenceModel(directory: nil), SentenceModel(directory: URL(fileURLWithPath: "/nonexistent/model")),
        ] {
            let results = try SearchEngine(database: database, sentenceModel: model).search(query)
            #expect(results.results.map(\.id) == lexical.results.map(\.id))
            #expect(results.semanticProblem != nil)
            #expect(results.semanticProblem?.description.contains("searching by words only") == true)
        }
    }

    @Test func aDamagedModelSearchesByWordsAndSaysWhy() async throws {
        let (database, model) = try await embeddedFixtureIndex.value
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let damaged = directory.appendingPathComponent("model")
        try FileManager.default.copyItem(at: try #require(model.directory), to: damaged)
        let weights = damaged.appendingPathComponent("model.safetensors")
        let handle = try FileHandle(forWritingTo: weights)
        try handle.truncate(atOffset: 4096)
        try handle.close()
        let results = try SearchEngine(database: database, sentenceModel: SentenceModel(directory: damaged))
            .search(Self.description)
        #expect(!results.results.isEmpty)
        guard case .model(.modelDamaged) = results.semanticProblem else {
            Issue.record("expected a damaged model, got \(String(describing: results.semanticProblem))")
            return
        }
    }

    @Test func anIndexWithoutVectorsSearchesByWordsAndSaysSo() async throws {
        let database = try await makeFixtureIndex()
        let results = try SearchEngine(database: database, sentenceModel: try realSentenceModel())
            .search(MeaningSearchTests.description)
        #expect(results.semanticProblem == .noVectors)
        #expect(!results.results.isEmpty)
    }
}

@Suite("Comic vectors kept in step")
struct VectorIndexerTests {
    @Test func onlyChangedComicsAreEmbeddedAgain() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mirror = try makeMirror(latest: 10, in: directory)
        let database = try ComicDatabase.open(at: directory.appendingPathComponent("index.sqlite").path)
        let logger = quietLogger
        _ = try await Indexer(database: database, source: MirrorComicSource(directory: mirror), logger: logger).run()
        let encoder = try realSentenceModel().encoder().get()
        let vectors = VectorIndexer(database: database, encoder: encoder, width: 1)

        let first = try await vectors.run()
        #expect(first.embedded == 10 && first.current == 0)
        let second = try await vectors.run()
        #expect(second.embedded == 0 && second.current == 10)

        // A rebuild that parses the same pages changes no text: nothing is embedded again.
        _ = try await Indexer(database: database, source: MirrorComicSource(directory: mirror), logger: logger)
            .run(mode: .rebuild(nil))
        #expect(try await vectors.run().embedded == 0)

        // Vectors of another model, or of other text, are made again.
        try database.write { db in
            try db.execute(sql: "UPDATE comicVector SET model = 'another-model' WHERE comicID = 3")
            try db.execute(sql: "UPDATE comicVector SET textDigest = 'stale' WHERE comicID = 7")
        }
        let third = try await vectors.run()
        #expect(third.embedded == 2 && third.current == 8)
    }

    @Test func vectorsFromAFileAreTakenOnlyWhereTheyMatch() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mirror = try makeMirror(latest: 5, in: directory)
        let logger = quietLogger
        let encoder = try realSentenceModel().encoder().get()

        let source = try ComicDatabase.open(at: directory.appendingPathComponent("source.sqlite").path)
        _ = try await Indexer(database: source, source: MirrorComicSource(directory: mirror), logger: logger).run()
        _ = try await VectorIndexer(database: source, encoder: encoder, width: 1).run()
        // Comic 2's shipped vector was made from other text: it must be embedded, not taken.
        try source.write { db in try db.execute(sql: "UPDATE comicVector SET textDigest = 'other' WHERE comicID = 2") }
        let shipped = directory.appendingPathComponent("vectors.sqlite").path
        try await source.writer.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS shipped", arguments: [shipped])
            try db.execute(sql: "CREATE TABLE shipped.comicVector AS SELECT * FROM comicVector")
        }

        let target = try ComicDatabase.open(at: directory.appendingPathComponent("target.sqlite").path)
        _ = try await Indexer(database: target, source: MirrorComicSource(directory: mirror), logger: logger).run()
        let report = try await VectorIndexer(database: target, encoder: encoder, width: 1).run(importingFrom: shipped)
        #expect(report.imported == 4 && report.embedded == 1)
        let sources = try target.vectorSources()
        #expect(
            sources.count == 5 && sources.values.allSatisfy { $0.model == encoder.identity && $0.textDigest != "other" }
        )
    }

    @Test func aFileThatHoldsNoVectorsIsRefused() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("not-vectors.sqlite")
        try Data("not a database at all, just some words".utf8).write(to: file)
        #expect(throws: StoreError.notAVectorFile(path: file.path, reason: "not an SQLite file, or a damaged one")) {
            try ComicDatabase.forEachVector(inFile: file.path, model: "m", dimensions: 384) { _ in true }
        }
    }
}

@Suite("Related comics by meaning")
struct SimilarRelatedComicsTests {
    @Test func theFiveNearestInMeaningFollowTheLinks() async throws {
        let (database, _) = try await embeddedFixtureIndex.value
        let related = try Library(database: database).related(.number(1608)).related
        let similar = related.filter { $0.reasons.contains(.similar) }
        #expect(similar.count == Library.similarComicCount)
        #expect(similar.allSatisfy { $0.id != 1608 && ($0.similarity ?? 0) > 0 })
        // The links keep their place: both ways first, then one way, then meaning alone.
        let linkCounts = related.map { $0.reasons.filter { $0 != .similar }.count }
        #expect(linkCounts == linkCounts.sorted(by: >), "\(related)")
        #expect(related.prefix(2).map(\.id).sorted() == [1611, 1663])
        let alone = related.filter { $0.reasons == [.similar] }.compactMap(\.similarity)
        #expect(alone == alone.sorted(by: >))
        // The same nearest comics as the engine finds for the comic's own vector.
        let nearest = try database.nearestComics(to: 1608, limit: 5)
        #expect(Set(nearest.map(\.id)) == Set(similar.map(\.id)))
    }

    @Test func aComicWithoutVectorsHasOnlyItsLinks() async throws {
        let database = try await makeFixtureIndex()
        let related = try Library(database: database).related(.number(1608)).related
        #expect(related.allSatisfy { !$0.reasons.contains(.similar) } && related.count == 2)
    }
}

@Suite("The snapshot's vectors")
struct ShippedVectorsTests {
    /// `snapshot/vectors.sqlite.xz`, extracted by `make snapshot-dir` (which `make test` runs).
    static let shippedFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/snapshot/vectors.sqlite")

    /// The fixture comics are copies of the snapshot's: embedded again here (by the indexer,
    /// into the shared fixture index), by the same model from the same tokens, they must give the
    /// vectors the snapshot ships.
    @Test func reEmbeddingASampleGivesTheShippedVectors() async throws {
        let path = Self.shippedFile.path
        try #require(FileManager.default.fileExists(atPath: path), "no \(path): run `make snapshot-dir`")
        let (database, model) = try await embeddedFixtureIndex.value
        let identity = try model.encoder().get().identity
        var shipped: [Comic.ID: ComicVector] = [:]
        let refused = try ComicDatabase.forEachVector(inFile: path, model: identity, dimensions: 384) { vector in
            shipped[vector.id] = vector
            return true
        }
        #expect(shipped.count == 3281 && refused == 0)

        var compared = 0
        for (id, source) in try database.vectorSources() {
            let stored = try #require(shipped[id], "#\(id) has no shipped vector")
            #expect(stored.model == identity)
            // A fixture page that differs from the snapshot's (a few are other revisions) has
            // other tokens; the indexer would embed it rather than take the shipped vector.
            guard stored.textDigest == source.textDigest else { continue }
            let vector = try #require(try database.reading { try $0.vectors(of: id, model: identity) }.first)
            let cosine = zip(vector, stored.vector).reduce(Float(0)) { $0 + $1.0 * $1.1 }
            // 0.99, not more: vectors made in int8 and in float32 (a processor without VNNI) from
            // the same int8 weights differ by up to that (docs/int8.md).
            #expect(cosine >= 0.99, "#\(id): cosine \(cosine)")
            compared += 1
        }
        #expect(compared >= 20, "only \(compared) fixture comics have the snapshot's text")
    }
}

/// How `relevant` ranks a passage, words and meaning together, on the embedded fixture subset.
@Suite("Passages: what lifts the comic that fits")
struct PassageRankingTests {
    private func ids(_ passage: String, titleWeight: Double? = nil) async throws -> [Int] {
        var settings = RelevantSettings()
        if let titleWeight { settings.titleWeight = titleWeight }
        return try await engine().relevant(to: passage, settings: settings).results.map(\.id)
    }

    /// A passage that names what #2207 (Math Work) is about in its title's words, among words
    /// another comic (#1608) shares more of: the whole title held lifts it to the top two, level
    /// with #1608 (their scores differ by 0.6 %, so which is first depends on the last digits of
    /// the model's vectors: the int8 model put #1608 ahead by 0.006), and it is far further
    /// behind the first without that weight.
    @Test func aPassageHoldingAComicsWholeTitleLiftsItToTheTop() async throws {
        let passage =
            "I keep asking the kids to show their math work on the homework, and they keep writing just the answer."
        func behindTheFirst(titleWeight: Double?) async throws -> (rank: Int, gap: Double) {
            var settings = RelevantSettings()
            if let titleWeight { settings.titleWeight = titleWeight }
            let results = try await engine().relevant(to: passage, settings: settings).results
            let rank = try #require(results.firstIndex { $0.id == 2207 }, "\(results.map(\.id))")
            return (rank, results[0].score - results[rank].score)
        }
        let held = try await behindTheFirst(titleWeight: nil)
        #expect(held.rank <= 1 && held.gap < 0.01, "\(held)")
        let notHeld = try await behindTheFirst(titleWeight: 0)
        #expect(notHeld.gap > held.gap + 0.1, "with the title's weight \(held), without \(notHeld)")
    }

    /// A comic that other comics' explanations link to gains the link weight, scaled by how many
    /// link to it; one that none links to gains nothing. In the fixture subset two explanations
    /// link to #2 (Petit Trees) and none to #2207 (Math Work).
    @Test func comicsThatExplanationsLinkToGainTheLinkWeight() async throws {
        let passage = "A quick pencil sketch of some small trees, and the math work for how tall they grow."
        var settings = RelevantSettings()
        let linked = try await engine().relevant(to: passage, limit: 40, settings: settings).results
        settings.linkWeight = 0
        let unlinked = try await engine().relevant(to: passage, limit: 40, settings: settings).results
        func score(_ id: Int, in results: [RelevantComic]) throws -> Double {
            try #require(results.first { $0.id == id }?.score, "#\(id) not ranked")
        }
        let gain = try score(2, in: linked) - score(2, in: unlinked)
        #expect(abs(gain - RelevantSettings().linkWeight * log(3) / log(11)) < 1e-9, "\(gain)")
        #expect(try score(2207, in: linked) == score(2207, in: unlinked))
    }

    /// The snippet marks the passage's telling words, not "a" or "the", which are looked up
    /// too (a short passage's every word is) but say nothing of why the comic fits.
    @Test func theSnippetMarksOnlyTellingWords() async throws {
        let found = try await engine().relevant(
            to: "My son's school lost a year of the student records: a SQL injection in a name, and the table was gone."
        )
        let marks = SearchEngine.highlightMarks
        let marked = found.results.flatMap { result in
            result.snippet.components(separatedBy: marks.open).dropFirst().compactMap {
                $0.components(separatedBy: marks.close).first?.lowercased()
            }
        }
        #expect(found.words.contains("a") && found.words.contains("the"), "looked up: \(found.words)")
        #expect(!marked.isEmpty, "the telling words stay marked")
        #expect(!marked.contains("a") && !marked.contains("the") && !marked.contains("of"), "\(marked)")
    }

    /// Half a title is no title: "math" alone, in a passage about something else, earns #2207
    /// nothing.
    @Test func partOfATitleEarnsNothing() async throws {
        let passage = "The math teacher asked us to compare two hoverboards and say which would stay up longer."
        #expect(try await ids(passage) == ids(passage, titleWeight: 0))
    }
}

/// How sure `relevant` says its first comic is (``RelevantConfidence``).
@Suite("Passages: how sure the first comic is")
struct RelevantConfidenceTests {
    /// Surer as the first leads the second by more and is nearer in meaning.
    @Test func theWordsGrowSurerWithTheLeadAndTheMeaning() {
        #expect(RelevantConfidence(firstScore: 0.9, lead: 0, similarity: 0.2) == .longShot)
        #expect(RelevantConfidence(firstScore: 1.3, lead: 0.2, similarity: 0.4) == .mightFit)
        #expect(RelevantConfidence(firstScore: 1.5, lead: 0.5, similarity: 0.6) == .fitsWell)
    }

    /// Ranked with meaning, a passage's answer has words for how sure it is; ranked by the words
    /// alone (no model), none: the figures behind the words were measured with meaning.
    @Test func meaningGivesTheWordsAndTheWordsAloneNone() async throws {
        let passage = "our build pulls in a tiny library that one volunteer has maintained for years"
        let withMeaning = try await engine().relevant(to: passage)
        #expect(withMeaning.confidence != nil && withMeaning.results.first?.similarity != nil)
        let (database, _) = try await embeddedFixtureIndex.value
        let wordsOnly = try SearchEngine(database: database, sentenceModel: nil).relevant(to: passage)
        #expect(!wordsOnly.results.isEmpty && wordsOnly.confidence == nil)
    }

    /// How far the first comic leads is measured against the second of the whole ranking, so
    /// asking for one comic does not make the answer surer than asking for ten.
    @Test func theConfidenceDoesNotDependOnHowManyComicsAreAskedFor() async throws {
        let passage = "our build pulls in a tiny library that one volunteer has maintained for years"
        let ten = try await engine().relevant(to: passage, limit: 10)
        #expect(ten.results.count > 1 && ten.secondScore == ten.results[1].score)
        for limit in [1, 2, 3] {
            let fewer = try await engine().relevant(to: passage, limit: limit)
            #expect(fewer.results.first?.id == ten.results.first?.id)
            #expect(fewer.secondScore == ten.secondScore, "limit \(limit)")
            #expect(fewer.confidence != nil && fewer.confidence == ten.confidence, "limit \(limit)")
        }
    }
}
