import Foundation
import Testing
import XKCDFetch
import XKCDModel
import _XKCDTestSupport

@Suite("RawCache, CachedComicSource and CachingComicSource")
final class RawCacheTests {
    /// Each test's own directory (Swift Testing makes an instance per test), removed after it.
    let directory: URL

    init() throws { directory = try makeTemporaryDirectory() }
    deinit { try? FileManager.default.removeItem(at: directory) }

    @Test func roundTripKeepsBytesAndFetchDate() throws {
        let cache = RawCache(directory: directory)
        let fetchedAt = Date(timeIntervalSince1970: 1_700_000_000)
        let data = try Fixtures.explainAPIResponse(327)
        try cache.store(RawResponse(data: data, fetchedAt: fetchedAt), for: .explanation(327))
        let loaded = try #require(try cache.load(.explanation(327)))
        #expect(loaded.data == data)
        #expect(abs(loaded.fetchedAt.timeIntervalSince(fetchedAt)) < 1)
        #expect(cache.fetchedAt(.explanation(327)).map { abs($0.timeIntervalSince(fetchedAt)) < 1 } == true)
    }

    @Test func filesAreGzipAndSmaller() throws {
        let cache = RawCache(directory: directory)
        let data = try Fixtures.explainAPIResponse(327)
        try cache.store(RawResponse(data: data), for: .explanation(327))
        let onDisk = try Data(contentsOf: cache.fileURL(for: .explanation(327)))
        #expect(onDisk.starts(with: [0x1f, 0x8b]))
        #expect(onDisk.count < data.count / 2)
        #expect(cache.fileURL(for: .explanation(327)).path.hasSuffix("explain/327.json.gz"))
        #expect(cache.fileURL(for: .comic(327)).path.hasSuffix("xkcd/327.json.gz"))
        #expect(cache.fileURL(for: .latest).path.hasSuffix("xkcd/latest.json.gz"))
    }

    @Test func emptyBodyRoundTrips() throws {
        let cache = RawCache(directory: directory)
        try cache.store(RawResponse(data: Data()), for: .comic(1))
        #expect(try cache.load(.comic(1))?.data == Data())
    }

    @Test func noTemporaryFilesAreLeft() throws {
        let cache = RawCache(directory: directory)
        for id in [1, 2, 3] {
            try cache.store(RawResponse(data: try Fixtures.comicJSON(id)), for: .comic(id))
        }
        try cache.store(RawResponse(data: try Fixtures.comicJSON(2)), for: .comic(2))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("xkcd").path)
        #expect(names.sorted() == ["1.json.gz", "2.json.gz", "3.json.gz"])
        #expect(cache.storedComicIDs() == [1, 2, 3])
        #expect(cache.removeLeftoverTemporaryFiles() == 0)
    }

    @Test(arguments: [Data("not gzip at all".utf8), Data(), Data([0x1f, 0x8b, 0x08, 0x00])])
    func corruptFileIsAbsent(contents: Data) throws {
        let cache = RawCache(directory: directory, logger: quietLogger)
        try cache.store(RawResponse(data: try Fixtures.comicJSON(327)), for: .comic(327))
        try contents.write(to: cache.fileURL(for: .comic(327)))
        #expect(try cache.load(.comic(327)) == nil)
    }

    @Test func truncatedGzipIsAbsent() throws {
        let cache = RawCache(directory: directory)
        try cache.store(RawResponse(data: try Fixtures.explainAPIResponse(327)), for: .explanation(327))
        let url = cache.fileURL(for: .explanation(327))
        let whole = try Data(contentsOf: url)
        try whole.prefix(whole.count - 10).write(to: url)
        #expect(try cache.load(.explanation(327)) == nil)
    }

    @Test func notWrittenYetIsRemembered() throws {
        let cache = RawCache(directory: directory)
        #expect(try cache.explanationLookup(3282) == nil)
        try cache.store(.notWrittenYet, forExplanation: 3282)
        #expect(try cache.explanationLookup(3282) == .notWrittenYet)
        #expect(cache.notWrittenYetIDs() == [3282])
        try cache.store(RawResponse(data: try Fixtures.explainAPIResponse(327)), for: .explanation(3282))
        guard case .page? = try cache.explanationLookup(3282) else {
            Issue.record("a stored page replaces the marker")
            return
        }
        #expect(cache.notWrittenYetIDs() == [])
        #expect(cache.storedExplanationIDs() == [3282])
    }

    @Test func cachedSourceServesWithoutRequests() async throws {
        let cache = RawCache(directory: directory)
        try await withFixtureServer { server, base in
            let caching = CachingComicSource(upstream: makeSource(base), cache: cache, logger: quietLogger)
            _ = try await caching.latestComic()
            for id in [1, 327, 404] { _ = try await caching.comic(id) }
            for id in [327, 3282] { _ = try await caching.explanation(id) }
            #expect(server.requestLog.count == 6)
            #expect(cache.storedComicIDs() == [1, 327])
            server.resetLog()

            let cached = CachedComicSource(cache: cache)
            #expect(try XKCDJSON.decodeComic(try await cached.latestComic().data).id == 3282)
            #expect(try await cached.comic(327)?.data == (try Fixtures.comicJSON(327)))
            #expect(try await cached.comic(404) == nil)
            guard case .page(let page) = try await cached.explanation(327) else {
                Issue.record("expected a page")
                return
            }
            #expect(page.data == (try Fixtures.explainAPIResponse(327)))
            #expect(try await cached.explanation(3282) == .notWrittenYet)
            #expect(server.requestLog.isEmpty)
        }
    }

    @Test func cachedSourceWithoutLatestSaysSo() async throws {
        let cached = CachedComicSource(cache: RawCache(directory: directory))
        await #expect(throws: FetchError.notCached(what: "the latest comic")) { try await cached.latestComic() }
    }
}

@Suite("MirrorComicSource")
final class MirrorComicSourceTests {
    let directory: URL

    init() throws { directory = try makeTemporaryDirectory() }
    deinit { try? FileManager.default.removeItem(at: directory) }

    let mirror = MirrorComicSource(directory: Fixtures.corpusURL)

    @Test func latestIsTheNewestComic() async throws {
        #expect(try XKCDJSON.decodeComic(try await mirror.latestComic().data).id == 3282)
    }

    @Test func comicIsTheFile() async throws {
        #expect(try await mirror.comic(327)?.data == (try Fixtures.comicJSON(327)))
        #expect(try await mirror.comic(404) == nil)
    }

    @Test func explanationIsTheFileOrNotWrittenYet() async throws {
        guard case .page(let raw) = try await mirror.explanation(327) else {
            Issue.record("expected a page")
            return
        }
        #expect(raw.data == (try Fixtures.explainAPIResponse(327)))
        #expect(try await mirror.explanation(3282) == .notWrittenYet)
    }

    @Test func missingTitleFileIsNotWrittenYet() async throws {
        let api = directory.appendingPathComponent("explainxkcd/api")
        try FileManager.default.createDirectory(at: api, withIntermediateDirectories: true)
        try Data(#"{"error":{"code":"missingtitle","info":"x"}}"#.utf8).write(to: api.appendingPathComponent("5.json"))
        #expect(try await MirrorComicSource(directory: directory).explanation(5) == .notWrittenYet)
        await #expect(throws: FetchError.self) { try await MirrorComicSource(directory: directory).latestComic() }
    }
}
