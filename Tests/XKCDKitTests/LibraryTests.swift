import Foundation
import Testing
import XKCDEmbed
import XKCDIndexer
import XKCDStore
import _XKCDTestSupport

@testable import XKCDKit

/// A library over an in-memory index of the fixture mirror (comics 1-10, 149, 327, …, 3282).
private func makeFixtureLibrary() async throws -> Library {
    let database = try ComicDatabase.inMemory()
    _ = try await Indexer(
        database: database, source: MirrorComicSource(directory: Fixtures.corpusURL), logger: quietLogger
    )
    .run()
    return Library(database: database)
}

private func reference(_ text: String) throws -> ComicReference {
    try ComicReference(parsing: text)
}

@Suite("Library: resolving, browsing, explanations")
struct LibraryBrowsingTests {
    @Test(arguments: [
        ("327", ComicReference.number(327)), ("#327", .number(327)), (" 42 ", .number(42)), ("latest", .latest),
        ("LATEST", .latest), ("random", .random),
    ])
    func parsesWhatUsersType(_ text: String, _ expected: ComicReference) throws {
        #expect(try ComicReference(parsing: text) == expected)
    }

    @Test(arguments: [
        ("abc", LibraryError.notANumber("abc")), ("3.5", .notANumber("3.5")), ("", .notANumber("")),
        ("#", .notANumber("#")), ("+5", .notANumber("+5")), ("0", .belowFirst(0)), ("-3", .belowFirst(-3)),
        ("99999999999999999999", .notANumber("99999999999999999999")),
    ])
    func rejectsWhatIsNotAComicNumber(_ text: String, _ error: LibraryError) {
        #expect(throws: error) { try ComicReference(parsing: text) }
    }

    @Test func errorsAreOneLowercaseLine() {
        let errors: [LibraryError] = [
            .notANumber("abc"), .belowFirst(0), .notYetPublished(4000, latest: 3282), .skipped404, .notIndexed(500),
            .emptyIndex, .noExplanation(3282), .noCurrentComic, .nothingAfter(3282), .nothingBefore(1),
            .notAFavourite(5), .noFavourites, .noFavouritesTagged("x"), .invalidTag("foo bar", reason: "r"),
            .malformedExport(source: "f", reason: "r"), .cannotRead(path: "p", reason: "r"),
        ]
        for error in errors {
            let text = error.description
            #expect(!text.contains("\n"))
            #expect(text.first.map { !$0.isUppercase } == true, "\(text)")
        }
        #expect(
            LibraryError.notYetPublished(4000, latest: 3282).description
                == "#4000 does not exist yet: the latest is #3282")
        #expect(
            LibraryError.skipped404.description
                == "#404 does not exist: xkcd skipped it on purpose (HTTP 404 Not Found)")
        #expect(LibraryError.noExplanation(3282).description == "#3282 has no explanation yet on explain xkcd")
    }

    /// The library says what is wrong; which command to run is the front end's to say (the
    /// command line's `Advice`, the server's `APIError`), so no message names one.
    @Test func messagesSayWhatIsWrongWithoutTerminalAdvice() {
        let errors: [any Error & CustomStringConvertible] = [
            LibraryError.notIndexed(500), LibraryError.emptyIndex, LibraryError.noCurrentComic,
            LibraryError.notAFavourite(5), LibraryError.noFavourites, SemanticSearchError.noModel,
            SemanticSearchError.noVectors, SemanticSearchError.model(.modelMissing(path: "/nonexistent/model")),
            StoreError.emptyFile(path: "/x"), StoreError.foreignDatabase(path: "/x"), StoreError.damaged(path: "/x"),
            StoreError.needsUpdate(path: "/x"), StoreError.notAVectorFile(path: "/x", reason: "no comicVector table"),
        ]
        for error in errors {
            for advice in [
                "run '", "'xkcd-search", "make model", "XKCD_SEARCH_MODEL", "fav add", "show one", "--db",
                "export-vectors", "copy it",
            ] {
                #expect(!error.description.contains(advice), "\(error.description)")
            }
        }
        #expect(LibraryError.notIndexed(500).description == "#500 is not in the index")
        #expect(SemanticSearchError.noModel.reason == "no sentence model found")
    }

    @Test func resolvesAndRejectsNumbersAgainstTheIndex() async throws {
        let library = try await makeFixtureLibrary()
        #expect(try library.resolve(.number(327)) == 327)
        #expect(try library.resolve(.latest) == 3282)
        #expect(Fixtures.comicIDs.contains(try library.resolve(.random)))
        #expect(throws: LibraryError.notYetPublished(4000, latest: 3282)) { try library.resolve(.number(4000)) }
        #expect(throws: LibraryError.skipped404) { try library.resolve(.number(404)) }
        #expect(throws: LibraryError.notIndexed(500)) { try library.resolve(.number(500)) }
        #expect(throws: LibraryError.noCurrentComic) { try library.resolve(nil) }
    }

    @Test func anEmptyIndexSaysSo() throws {
        let library = Library(database: try ComicDatabase.inMemory())
        #expect(throws: LibraryError.emptyIndex) { try library.show(.latest) }
        #expect(throws: LibraryError.emptyIndex) { try library.random() }
    }

    @Test func showGathersTheComicAndRemembersIt() async throws {
        let library = try await makeFixtureLibrary()
        let page = try library.show(.number(327))
        #expect(page.comic.title == "Exploits of a Mom")
        #expect(page.comic.date.description == "2007-10-10")
        #expect(page.explanation?.pageTitle == "327: Exploits of a Mom")
        #expect(!page.categories.isEmpty)
        #expect(page.transcript.contains("Bobby Tables"))
        #expect(page.favourite == nil)
        #expect(library.currentComicID() == 327)
        // No JSON transcript after about #1608: explain xkcd's is used.
        let recent = try library.show(.number(2347))
        #expect(recent.transcriptSource == .explainXKCD)
        #expect(!recent.transcript.isEmpty)
    }

    @Test func stepsSkipGapsAndStopAtBothEnds() async throws {
        let library = try await makeFixtureLibrary()
        _ = try library.show(.number(1))
        #expect(throws: LibraryError.nothingBefore(1)) { try library.step(.previous) }
        #expect(try library.step(.next).comic.id == 2)
        _ = try library.show(.number(10))
        #expect(try library.step(.next).comic.id == 149)  // 11-148 are not in the fixtures
        #expect(try library.step(.previous).comic.id == 10)
        _ = try library.show(.latest)
        #expect(throws: LibraryError.nothingAfter(3282)) { try library.step(.next) }
        #expect(try library.step(.previous).comic.id == 3175)
        #expect(library.currentComicID() == 3175)
    }

    @Test func explainNeedsAnExplanation() async throws {
        let library = try await makeFixtureLibrary()
        let page = try library.explain(.number(327))
        #expect(page.explanation?.page.explanation.contains("Bobby") == true)
        #expect(throws: LibraryError.noExplanation(3282)) { try library.explain(.number(3282)) }
        #expect(throws: LibraryError.skipped404) { try library.explain(.number(404)) }
    }

    @Test func shareLineAndURLs() async throws {
        let library = try await makeFixtureLibrary()
        #expect(try library.shareLine(.number(327)) == "xkcd #327: Exploits of a Mom https://xkcd.com/327/")
        #expect(try library.url(.number(327)) == "https://xkcd.com/327/")
        #expect(try library.url(.number(327), explain: true) == "https://www.explainxkcd.com/wiki/index.php/327")
    }

    @Test func randomIsUniformOverItsPool() async throws {
        let library = try await makeFixtureLibrary()
        var seen = Set<Int>()
        for _ in 0..<400 { seen.insert(try library.random().comic.id) }
        #expect(seen == Set(Fixtures.comicIDs))
        #expect(throws: LibraryError.noFavourites) { try library.random(among: .favourites) }
        _ = try library.addFavourite(.number(327), tags: ["SQL"])
        _ = try library.addFavourite(.number(149))
        for _ in 0..<20 {
            #expect([149, 327].contains(try library.random(among: .favourites).comic.id))
            #expect(try library.random(among: .tagged(" sql ")).comic.id == 327)
        }
        #expect(throws: LibraryError.noFavouritesTagged("nope")) { try library.random(among: .tagged("nope")) }
    }

    @Test func transcriptPrefersTheRicherOne() {
        let tests: [(String, String?, TranscriptSource)] = [
            ("", "Cueball: Hi", .explainXKCD), ("Cueball: Hi there", "Hi", .xkcd),
            ("Hi", "Cueball: Hi there, everyone", .explainXKCD), ("Hi", nil, .xkcd), ("", "", .none),
        ]
        for (json, explain, source) in tests {
            #expect(Library.bestTranscript(json: json, explain: explain).1 == source)
        }
    }
}

@Suite("Library: favourites")
struct LibraryFavouriteTests {
    @Test(arguments: [("sql", "sql"), ("  SQL ", "sql"), ("little-bobby_2", "little-bobby_2"), ("Ünïcode", "ünïcode")])
    func tagsAreNormalised(_ raw: String, _ tag: String) throws {
        #expect(try Library.normalisedTag(raw) == tag)
    }

    @Test(arguments: ["foo bar", "", "   ", "a/b", "sql!", "#sql", String(repeating: "x", count: 41)])
    func badTagsAreRejected(_ raw: String) {
        #expect(throws: LibraryError.self) { try Library.normalisedTag(raw) }
        #expect((try? Library.normalisedTag(raw)) == nil)
    }

    @Test func addTagUntagRemove() async throws {
        let library = try await makeFixtureLibrary()
        let added = try library.addFavourite(.number(327), tags: ["SQL", "bobby", "sql"])
        #expect(added.isNew && added.addedTags == ["sql", "bobby"])
        let again = try library.addFavourite(.number(327), tags: ["sql", "classic"])
        #expect(!again.isNew && again.addedTags == ["classic"])
        #expect(again.favourite.addedAt == added.favourite.addedAt)
        #expect(try library.tag(.number(327), with: ["Mom"]) == ["mom"])
        #expect(try library.untag(.number(327), removing: ["classic", "nope"]) == ["classic"])
        #expect(try library.favourites().map(\.favourite.tags) == [["bobby", "mom", "sql"]])
        #expect(try library.show(.number(327)).favourite?.tags == ["bobby", "mom", "sql"])
        #expect(throws: LibraryError.notIndexed(500)) { try library.addFavourite(.number(500)) }
        #expect(throws: LibraryError.skipped404) { try library.addFavourite(.number(404)) }
        #expect(throws: LibraryError.notAFavourite(149)) { try library.tag(.number(149), with: ["x"]) }
        #expect(throws: LibraryError.invalidTag("foo bar", reason: "use one word of letters, digits, '-' and '_'")) {
            try library.addFavourite(.number(149), tags: ["foo bar"])
        }
        #expect(try library.favourites().count == 1)  // the bad tag added nothing
        #expect(try library.removeFavourite(.number(327)).favourite.id == 327)
        #expect(throws: LibraryError.notAFavourite(327)) { try library.removeFavourite(.number(327)) }
        #expect(try library.tagCounts().isEmpty)
    }

    @Test func exportImportRoundTripIsIdempotent() async throws {
        let source = try await makeFixtureLibrary()
        _ = try source.addFavourite(.number(327), tags: ["sql", "bobby"])
        _ = try source.addFavourite(.number(149))
        let data = try source.exportFavourites(at: ISO8601DateFormatter().date(from: "2026-08-09T08:30:00Z")!)

        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["format"] as? String == "xkcd-search favourites")
        #expect(object["version"] as? Int == 1)
        #expect(object["exported"] as? String == "2026-08-09T08:30:00Z")
        let entries = try #require(object["favourites"] as? [[String: Any]])
        #expect(entries.map { $0["num"] as? Int } == [149, 327])
        #expect(entries[1]["title"] as? String == "Exploits of a Mom")
        #expect(entries[1]["tags"] as? [String] == ["bobby", "sql"])
        #expect((entries[1]["added"] as? String).flatMap(ISO8601DateFormatter().date(from:)) != nil)

        let target = try await makeFixtureLibrary()
        _ = try target.addFavourite(.number(327), tags: ["classic"])
        let first = try target.importFavourites(data)
        #expect(first == FavouriteImport(entries: 2, addedFavourites: [149], addedTags: 2))
        let second = try target.importFavourites(data)
        #expect(second == FavouriteImport(entries: 2, addedFavourites: [], addedTags: 0))
        #expect(try target.favourites().map(\.favourite.tags) == [[], ["bobby", "classic", "sql"]])
        // The second export of the target reads back into the source with nothing lost.
        #expect(try source.importFavourites(try target.exportFavourites()).addedTags == 1)
    }

    @Test(arguments: [
        ("not json", "it is not valid JSON"),
        (#"[1, 2]"#, "should be an object"),
        (#"{"version": 1, "favourites": []}"#, #"it has no "format""#),
        (#"{"format": "something else", "version": 1, "favourites": []}"#, "its format is 'something else'"),
        (#"{"format": "xkcd-search favourites", "favourites": []}"#, #"it has no "version""#),
        (#"{"format": "xkcd-search favourites", "version": 2, "favourites": []}"#, "it is version 2"),
        (#"{"format": "xkcd-search favourites", "version": 1}"#, #"it has no "favourites""#),
        (
            #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 1}, {"title": "x"}]}"#,
            #"favourites[1] has no "num""#
        ),
        (
            #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": "327"}]}"#,
            "favourites[0].num should be a number"
        ),
        (
            #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 0}]}"#,
            "favourites[0].num is 0"
        ),
        (
            #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 1, "added": "yesterday"}]}"#,
            "favourites[0].added is not an ISO 8601 date"
        ),
        (
            #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 1}, {"num": 2, "tags": ["a b"]}]}"#,
            "favourites[1].tags: 'a b' is not a valid tag"
        ),
    ])
    func malformedFilesChangeNothingAndSayWhy(_ json: String, _ reason: String) async throws {
        let library = Library(database: try ComicDatabase.inMemory())
        _ = try library.database.addFavourite(7, tags: ["kept"])
        do {
            _ = try library.importFavourites(Data(json.utf8), source: "fav.json")
            Issue.record("imported \(json)")
        } catch let error as LibraryError {
            guard case .malformedExport(let source, let text) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(source == "fav.json")
            #expect(text.contains(reason), "\(text)")
            #expect(!error.description.contains("\n"))
        }
        #expect(try library.favourites().map(\.favourite) == [try #require(try library.database.favourite(7))])
    }

    @Test func aMinimalHandWrittenFileImports() async throws {
        let library = try await makeFixtureLibrary()
        let json = #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 327, "tags": ["SQL"]}]}"#
        let result = try library.importFavourites(Data(json.utf8))
        #expect(result == FavouriteImport(entries: 1, addedFavourites: [327], addedTags: 1))
        #expect(try library.favourites().first?.comic?.title == "Exploits of a Mom")
    }

    /// A comic the index lacks is refused, as `fav add` refuses it, and nothing is imported.
    @Test func aFileNamingAComicTheIndexLacksChangesNothing() async throws {
        let library = try await makeFixtureLibrary()
        let json = #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 327}, {"num": 99999}]}"#
        #expect(
            throws: LibraryError.importRefused(
                source: "fav.json", reason: "favourites[1]: #99999 does not exist yet: the latest is #3282")
        ) {
            try library.importFavourites(Data(json.utf8), source: "fav.json")
        }
        #expect(try library.favourites().isEmpty)
        let empty = Library(database: try ComicDatabase.inMemory())
        #expect(
            throws: LibraryError.importRefused(source: "the file", reason: "favourites[0]: \(LibraryError.emptyIndex)")
        ) {
            try empty.importFavourites(Data(json.utf8))
        }
    }
}

/// Favourites against everything that rewrites the comics: an incremental re-index, a rebuild
/// from the mirror, and a rebuild of the full-text index.
@Suite("Library: favourites survive re-indexing")
struct FavouritesSurviveReindexTests {
    @Test func favouritesSurviveReindexRebuildAndFullTextRebuild() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try ComicDatabase.open(at: directory.appendingPathComponent("index.sqlite").path)
        let indexer = Indexer(
            database: database, source: MirrorComicSource(directory: Fixtures.corpusURL), logger: quietLogger)
        _ = try await indexer.run()
        let library = Library(database: database)
        _ = try library.addFavourite(.number(327), tags: ["sql", "bobby"])
        _ = try library.addFavourite(.number(2347), tags: ["deps"])
        let before = try database.favourites()
        #expect(before.count == 2)

        _ = try await indexer.run()
        #expect(try database.favourites() == before)
        _ = try await indexer.run(mode: .rebuild(nil))
        #expect(try database.favourites() == before)
        try database.rebuildFullTextIndex()
        #expect(try database.favourites() == before)
        #expect(try database.favouriteIDs() == [327, 2347])
        #expect(try database.comicIDs(taggedWith: "sql") == [327])

        let reopened = Library(
            database: try ComicDatabase.open(at: directory.appendingPathComponent("index.sqlite").path))
        #expect(try reopened.favourites().map(\.favourite) == before)
    }
}
