import Foundation
import Logging
import XKCDIndexer
import XKCDKit
import XKCDStore
import _XKCDTestSupport

/// A logger that drops everything; tests never touch the global logging system.
let quietLogger = Logger(label: "xkcd-search.kit-tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// A fixture server, a temporary directory holding an on-disk index and a raw cache, and the
/// real HTTP source wired between them: what `xkcd-search index` builds, minus the command line.
///
/// ```swift
/// try await withIndexingHarness { harness in
///     let report = try await harness.makeIndexer().run()
///     harness.server.requestLog   // what the indexer asked for
/// }
/// ```
struct IndexingHarness {
    let server: FixtureServer
    let base: URL
    let directory: URL
    let database: ComicDatabase
    let cache: RawCache

    /// An indexer over `HTTPComicSource` → `CachingComicSource`, with tiny backoffs.
    ///
    /// Each loopback request to the fixture server takes about 45 ms of mostly idle time (TCP
    /// delayed acknowledgements, it seems), so runs use many connections to stay quick. The
    /// timeout is generous: the server shares two cores and the test process's thread pool with
    /// every other test, and can fall seconds behind when they are busy.
    func makeIndexer(
        timeout: Duration = .seconds(120), maxAttempts: Int = 3, perHost: Int = 16, width: Int = 32,
        batchSize: Int = 64
    ) -> Indexer {
        let http = HTTPComicSource(
            configuration: .init(
                xkcdBaseURL: base, explainBaseURL: base, maxConcurrentRequestsPerHost: perHost,
                requestTimeout: timeout,
                retryPolicy: .init(
                    maxAttempts: maxAttempts, baseDelay: .milliseconds(5), maxDelay: .milliseconds(20),
                    maxRetryAfter: .seconds(2))),
            logger: quietLogger)
        let source = CachingComicSource(upstream: http, cache: cache, logger: quietLogger)
        return Indexer(database: database, source: source, logger: quietLogger, width: width, batchSize: batchSize)
    }

    /// Log keys of the requests for one site since the last `resetLog()`.
    func requestedPaths(_ site: FixtureServer.Site) -> [String] {
        server.requests.filter { $0.site == site }.map(\.path)
    }

    /// Comic numbers whose explanation the server was asked for since the last `resetLog()`.
    func requestedExplanations() -> [Int] {
        requestedPaths(.explain).compactMap { Int($0.split(separator: "=").last ?? "") }.sorted()
    }
}

/// Runs `body` with a fresh server (serving `latest` as the newest comic) and a fresh temporary
/// directory, and tears both down afterwards, even on failure.
func withIndexingHarness(
    latest: Int? = nil, _ body: (IndexingHarness) async throws -> Void
) async throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = FixtureServer(latest: latest)
    let base = try await server.start()
    do {
        let harness = IndexingHarness(
            server: server, base: base, directory: directory,
            database: try ComicDatabase.open(at: directory.appendingPathComponent("index.sqlite").path),
            cache: RawCache(directory: directory.appendingPathComponent("raw", isDirectory: true)))
        try await body(harness)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// The fixture comics up to `latest` (all of them when nil).
func fixtureComics(upTo latest: Int? = nil) -> [Int] {
    Fixtures.comicIDs.filter { $0 <= (latest ?? Int.max) }
}

/// The fixture comics up to `latest` that explain xkcd has a page for.
func fixtureExplainedComics(upTo latest: Int? = nil) -> [Int] {
    let explained = Set(Fixtures.explainedIDs)
    return fixtureComics(upTo: latest).filter(explained.contains)
}

extension ComicDatabase {
    /// The explanations an incremental run should ask for again, worked out from the stored data
    /// rather than from ``plan(upTo:now:)``: those that failed last time and, a day or more after
    /// the run that asked for them (at `askedAt`, which is also when the server answered), those
    /// of stored comics that are missing, flagged incomplete or fetched within two weeks of the
    /// comic's date.
    func explanationsDueAgain(askedAt: Date = Date(), now: Date = Date()) throws -> [Int] {
        let failed = Set(try failures().filter { $0.resource == "explanation" }.map(\.id))
        // What may still change is asked for again once a day, not on every run.
        let recheck = now.timeIntervalSince(askedAt) >= ComicDatabase.explanationRecheckInterval
        return try comicIDs().filter { id in
            if failed.contains(id) { return true }
            guard recheck else { return false }
            guard let explanation = try explanation(for: id) else { return true }
            if explanation.page.isIncomplete { return true }
            guard let comicDay = try comic(id)?.date.dayNumber else { return true }
            let fetchedDay = askedAt.timeIntervalSince1970 / 86400
            return fetchedDay - Double(comicDay) <= ComicDatabase.freshExplanationWindow / 86400
        }
    }
}

/// The comics `text` finds, best first, through the search engine both front ends use.
func hits(_ database: ComicDatabase, _ text: String, limit: Int = 10) throws -> [Int] {
    try SearchEngine(database: database).search(text, limit: limit).results.map(\.id)
}

/// The best comic `text` finds, or nil.
func topHit(_ database: ComicDatabase, _ text: String) throws -> Int? {
    try hits(database, text, limit: 3).first
}

/// A mirror directory (as `index --mirror` reads) holding the fixture comics up to `latest`, with
/// `latest` as its newest comic; the files are symbolic links into the fixtures.
func makeMirror(latest: Int, in directory: URL) throws -> URL {
    let fileManager = FileManager.default
    let mirror = directory.appendingPathComponent("mirror", isDirectory: true)
    let xkcd = mirror.appendingPathComponent("xkcd", isDirectory: true)
    try fileManager.createDirectory(at: xkcd, withIntermediateDirectories: true)
    let corpus = Fixtures.corpusURL
    for id in fixtureComics(upTo: latest) {
        try fileManager.createSymbolicLink(
            at: xkcd.appendingPathComponent(String(id)),
            withDestinationURL: corpus.appendingPathComponent("xkcd/\(id)"))
    }
    try fileManager.copyItem(
        at: corpus.appendingPathComponent("xkcd/\(latest)/info.0.json"),
        to: xkcd.appendingPathComponent("info.0.json"))
    try fileManager.createSymbolicLink(
        at: mirror.appendingPathComponent("explainxkcd"),
        withDestinationURL: corpus.appendingPathComponent("explainxkcd"))
    return mirror
}

/// A fresh in-memory index of the real fixture subset, built by the indexer from the fixtures as a mirror.
func makeFixtureIndex() async throws -> ComicDatabase {
    let database = try ComicDatabase.inMemory()
    _ = try await Indexer(
        database: database, source: MirrorComicSource(directory: Fixtures.corpusURL), logger: quietLogger
    ).run()
    return database
}
