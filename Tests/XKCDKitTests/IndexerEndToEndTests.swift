import Foundation
import Testing
import XKCDIndexer
import XKCDKit
import XKCDStore
import _XKCDTestSupport

/// The indexer as `xkcd-search index` runs it: real HTTP on loopback, the raw cache, an on-disk index.
///
/// Serialized: each test makes hundreds of requests, and one at a time they finish sooner and
/// leave the shared cores to the rest of the test run.
@Suite("Indexer end to end", .serialized, .timeLimit(.minutes(10)))
struct IndexerEndToEndTests {
    @Test func indexesEveryFixtureComicOverHTTP() async throws {
        try await withIndexingHarness { harness in
            let report = try await harness.makeIndexer().run()
            let database = harness.database

            #expect(report.latest == 3282)
            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(report.newComics.map(\.id) == fixtureComics())
            #expect(report.newComics.first { $0.id == 259 }?.title == "Clichéd Exchanges")
            #expect(report.comicsFetched == fixtureComics().count)
            #expect(report.explanationsFetched == fixtureExplainedComics().count)

            #expect(try database.comicIDs() == fixtureComics())
            #expect(try topHit(database, "bobby tables") == 327)
            #expect(try hits(database, "nebraska").contains(2347))
            #expect(try database.comic(259)?.title == "Clichéd Exchanges")
            #expect(try database.explanation(for: 327)?.pageTitle == "327: Exploits of a Mom")

            let stats = try database.statistics()
            #expect(stats.comics == fixtureComics().count)
            #expect(stats.latest == 3282)
            #expect(stats.explained == fixtureExplainedComics().count)
            #expect(stats.lastUpdate != nil)

            // Not written yet on the wiki: no explanation, no failure, remembered in the cache.
            for id in [3175, 3282] {
                #expect(try database.comic(id) != nil)
                #expect(try database.explanation(for: id) == nil)
                #expect(harness.cache.notWrittenYetIDs().contains(id))
            }

            // Every number asked once; no explanation asked for a comic that does not exist.
            let xkcd = harness.requestedPaths(.xkcd)
            #expect(xkcd.count == 3282)
            #expect(Set(xkcd) == Set([FixtureServer.latestPath] + (1...3281).map(FixtureServer.comicPath)))
            #expect(harness.requestedExplanations() == fixtureComics())
            #expect(harness.server.requestCount(forPath: FixtureServer.explainPath(404)) == 0)

            #expect(harness.cache.storedExplanationIDs() == fixtureExplainedComics())
            #expect(try database.integrityProblems().isEmpty)
        }
    }

    /// Within the day, a run with nothing new asks for the latest number and nothing else: the
    /// incomplete explanations and the comics whose page is not written yet wait a day.
    @Test func secondRunWithinTheDayAsksOnlyForTheLatest() async throws {
        try await withIndexingHarness(latest: 581) { harness in
            _ = try await harness.makeIndexer().run()
            #expect(try harness.database.explanationsDueAgain().isEmpty)
            let before = try harness.database.statistics()
            harness.server.resetLog()

            let report = try await harness.makeIndexer().run()

            #expect(harness.requestedPaths(.xkcd) == [FixtureServer.latestPath])
            #expect(harness.requestedExplanations() == [])
            #expect(report.explanationsFetched == 0)
            #expect(report.newComics.isEmpty)
            #expect(report.comicsFetched == 0)
            #expect(report.failures.isEmpty)
            var after = try harness.database.statistics()
            after.lastUpdate = before.lastUpdate
            #expect(after == before)
        }
    }

    /// A run that stopped after storing its documents but before rebuilding the ranking index
    /// leaves it out of date; the next run rebuilds it.
    @Test func aRunRebuildsARankingIndexLeftOutOfDate() async throws {
        try await withIndexingHarness(latest: 581) { harness in
            _ = try await harness.makeIndexer().run()
            #expect(try harness.database.rankingIndexIsCurrent())
            try harness.database.apply([ComicUpdate(id: 149, comic: .unchanged, explanation: .unchanged)])
            #expect(try harness.database.rankingIndexIsCurrent() == false)
            _ = try await harness.makeIndexer().run()
            #expect(try harness.database.rankingIndexIsCurrent())
        }
    }

    /// The latest number is believed up to one comic a day since the index's latest comic (or
    /// since 2006 for a new index), and 100 more: what today is decides, so the test sets it.
    @Test func theLatestNumberIsBelievedOnlyNearWhatIsKnown() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try ComicDatabase.open(at: directory.appendingPathComponent("index.sqlite").path)
        func run(latest: Int, on day: String) async throws -> IndexReport {
            let mirror = try makeMirror(latest: latest, in: directory.appendingPathComponent("\(latest)-\(day)"))
            let today = try #require(ISO8601DateFormatter().date(from: "\(day)T12:00:00Z"))
            return try await Indexer(
                database: database, source: MirrorComicSource(directory: mirror), logger: quietLogger, today: { today }
            ).run()
        }
        // #1190 on 2008-12-25: 1089 days since 2006-01-01, so at most #1189 by then; a day later,
        // at most #1190.
        await #expect(throws: IndexError.self) { _ = try await run(latest: 1190, on: "2008-12-25") }
        #expect(try database.comicIDs().isEmpty)
        #expect(try await run(latest: 1190, on: "2008-12-26").latest == 1190)
        // The index's #1190 of 2013-03-25 and ten days: at most #1300.
        await #expect(throws: IndexError.self) { _ = try await run(latest: 2207, on: "2013-04-04") }
        #expect(try await run(latest: 2207, on: "2016-01-01").latest == 2207)
    }

    @Test func newLatestComicIsTheOnlyNewNumberAskedFor() async throws {
        try await withIndexingHarness(latest: 3174) { harness in
            // The first 3174 numbers come from a mirror, which is quicker than 3174 requests; the
            // runs after it go to the server.
            let mirror = try makeMirror(latest: 3174, in: harness.directory)
            let first = try await Indexer(
                database: harness.database, source: MirrorComicSource(directory: mirror), logger: quietLogger
            ).run()
            #expect(first.latest == 3174)
            #expect(first.failures.isEmpty, "\(first.failures)")

            // The next comic: the latest answer carries it, so no comic request at all.
            var due = try harness.database.explanationsDueAgain()
            harness.server.resetLog()
            harness.server.setLatest(3175)
            let second = try await harness.makeIndexer().run()
            #expect(second.newComics.map(\.id) == [3175])
            #expect(second.newComics.first?.title == "Website Task Flowchart")
            #expect(harness.requestedPaths(.xkcd) == [FixtureServer.latestPath])
            #expect(harness.requestedExplanations() == (due + [3175]).sorted())

            // A jump: each number in between is asked once (404 on the fixture server), then never again.
            due = try harness.database.explanationsDueAgain()
            harness.server.resetLog()
            harness.server.setLatest(3282)
            let third = try await harness.makeIndexer().run()
            #expect(third.newComics.map(\.id) == [3282])
            let xkcd = harness.requestedPaths(.xkcd)
            #expect(xkcd.count == 1 + (3176...3281).count)
            #expect(Set(xkcd) == Set([FixtureServer.latestPath] + (3176...3281).map(FixtureServer.comicPath)))
            #expect(harness.requestedExplanations() == (due + [3282]).sorted())

            harness.server.resetLog()
            _ = try await harness.makeIndexer().run()
            #expect(harness.requestedPaths(.xkcd) == [FixtureServer.latestPath])
            #expect(try harness.database.comicIDs() == fixtureComics())
        }
    }

    @Test func failedComicsAreReportedAndOnlyThoseAreRetried() async throws {
        try await withIndexingHarness(latest: 581) { harness in
            let server = harness.server
            server.setFault(.status(500), forPath: FixtureServer.comicPath(327))
            server.setFault(.tooManyRequests(retryAfterSeconds: 1), forPath: FixtureServer.comicPath(149), times: 1)
            server.setFault(.truncatedBody, forPath: FixtureServer.comicPath(259))
            server.setFault(.shortBody, forPath: FixtureServer.comicPath(472))
            server.setFault(
                .garbage("<html><body><h1>Database error</h1><p>Try again later.</p></body></html>"),
                forPath: FixtureServer.explainPath(221))
            let indexer = harness.makeIndexer(maxAttempts: 3, perHost: 8, width: 16)

            let report = try await indexer.run()

            #expect(report.failures.map(\.id) == [221, 259, 327, 472], "\(report.failures)")
            let failures = Dictionary(report.failures.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(failures[327]?.resource == "comic")
            #expect(failures[327]?.message.contains("HTTP 500") == true, "\(failures[327]?.message ?? "")")
            #expect(failures[259]?.resource == "comic")
            #expect(failures[259]?.message.contains("malformed JSON") == true, "\(failures[259]?.message ?? "")")
            #expect(failures[472]?.resource == "comic")
            // Cut off mid-body: FoundationNetworking reports "transfer closed with N bytes remaining".
            #expect(
                failures[472].map {
                    ["incomplete body", "bytes remaining", "connection lost"].contains(where: $0.message.contains)
                }
                    == true,
                "\(failures[472]?.message ?? "")")
            #expect(failures[221]?.resource == "explanation")
            #expect(failures[221]?.message.contains("mw-parser-output") == true, "\(failures[221]?.message ?? "")")
            for failure in report.failures where failure.resource == "comic" {
                #expect(failure.message.contains("/\(failure.id)/info.0.json"), "\(failure.message)")
            }
            #expect(server.requestCount(forPath: FixtureServer.comicPath(327)) == 3)
            #expect(server.requestCount(forPath: FixtureServer.comicPath(472)) == 3)
            // A body that is not JSON is asked for twice, not three times.
            #expect(server.requestCount(forPath: FixtureServer.comicPath(259)) == 2)

            // 429 then success: retried after Retry-After, not a failure.
            #expect(server.requestCount(forPath: FixtureServer.comicPath(149)) == 2)
            #expect(try harness.database.comic(149) != nil)
            // Everything else is indexed; 221's comic is there without its explanation.
            let broken: Set = [259, 327, 472]
            #expect(try harness.database.comicIDs() == fixtureComics(upTo: 581).filter { !broken.contains($0) })
            #expect(try harness.database.comic(221) != nil)
            #expect(try harness.database.explanation(for: 221) == nil)
            #expect(try harness.database.failures() == report.failures)

            // The faults clear: the next run asks for the failed comics, the failed explanation and
            // what any incremental run asks for, nothing else. The explanations of the failed
            // comics were answered, so within the day they are not asked again.
            server.clearFaults()
            let due = try harness.database.explanationsDueAgain()
            #expect(due.contains(221))
            server.resetLog()

            let second = try await indexer.run()

            #expect(second.failures.isEmpty, "\(second.failures)")
            #expect(
                harness.requestedPaths(.xkcd).sorted()
                    == ([FixtureServer.latestPath] + broken.map(FixtureServer.comicPath)).sorted())
            #expect(harness.requestedExplanations() == due)
            #expect(second.newComics.map(\.id) == broken.sorted())
            #expect(second.newComics.first { $0.id == 259 }?.title == "Clichéd Exchanges")
            #expect(try harness.database.comicIDs() == fixtureComics(upTo: 581))
            #expect(try harness.database.explanation(for: 221)?.pageTitle == "221: Random Number")
            #expect(try topHit(harness.database, "bobby tables") == 327)
            #expect(try harness.database.failures().isEmpty)
            #expect(try harness.database.integrityProblems().isEmpty)
        }
    }

    @Test func stalledComicTimesOutAndIsRetriedByTheNextRun() async throws {
        try await withIndexingHarness(latest: 10) { harness in
            let server = harness.server
            // A stall no client waits out: the run ends only if each try of #5 times out.
            server.setFault(.stall(seconds: 3600), forPath: FixtureServer.comicPath(5))
            // A timeout short enough for a quick test, long enough that the other requests are
            // answered within it on a busy machine (the in-process server can fall a second or
            // two behind); each gets two tries too.
            let indexer = harness.makeIndexer(timeout: .seconds(5), maxAttempts: 2, perHost: 4, width: 4)

            let report = try await indexer.run()

            #expect(report.failures.map(\.id) == [5], "\(report.failures)")
            #expect(report.failures.first?.resource == "comic")
            #expect(report.failures.first?.message.contains("timed out") == true, "\(report.failures)")
            #expect(
                report.failures.first?.message.contains("/5/info.0.json after 2 tries") == true, "\(report.failures)")
            #expect(server.requestCount(forPath: FixtureServer.comicPath(5)) == 2)
            #expect(try harness.database.comicIDs() == [1, 2, 3, 4, 6, 7, 8, 9, 10])

            server.clearFaults()
            server.resetLog()
            let second = try await indexer.run()
            #expect(second.failures.isEmpty, "\(second.failures)")
            #expect(second.newComics.map(\.id) == [5])
            #expect(
                harness.requestedPaths(.xkcd).sorted()
                    == [FixtureServer.comicPath(5), FixtureServer.latestPath].sorted())
            #expect(try harness.database.comicIDs() == Array(1...10))
        }
    }

    @Test func rebuildFromTheRawCacheMakesNoRequests() async throws {
        try await withIndexingHarness(latest: 581) { harness in
            _ = try await harness.makeIndexer().run()
            let before = try IndexSnapshot(harness.database)
            let requestsBefore = harness.server.requestLog.count
            await harness.server.stop()
            // What `index --rebuild` does: replay every kept response, nothing else.
            let plan = IndexPlan(
                comics: harness.cache.storedComicIDs(), explanations: harness.cache.storedExplanationIDs())
            let cached = CachedComicSource(cache: harness.cache)

            let report = try await Indexer(database: harness.database, source: cached, logger: quietLogger)
                .run(mode: .rebuild(plan))

            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(report.latest == 581)
            #expect(harness.server.requestLog.count == requestsBefore)
            let after = try IndexSnapshot(harness.database)
            #expect(after == before, "\(after.differences(from: before))")
            #expect(try topHit(harness.database, "bobby tables") == 327)
            #expect(try harness.database.integrityProblems().isEmpty)

            // The same into an empty index: the cache alone restores it.
            let fresh = try ComicDatabase.open(at: harness.directory.appendingPathComponent("fresh.sqlite").path)
            let restored = try await Indexer(database: fresh, source: cached, logger: quietLogger)
                .run(mode: .rebuild(plan))
            #expect(restored.failures.isEmpty, "\(restored.failures)")
            #expect(harness.server.requestLog.count == requestsBefore)
            let rebuilt = try IndexSnapshot(fresh)
            #expect(rebuilt == before, "\(rebuilt.differences(from: before))")
            #expect(try topHit(fresh, "bobby tables") == 327)
        }
    }
}

/// What an index holds, for before/after comparisons (the time of the last update aside).
struct IndexSnapshot: Equatable, CustomStringConvertible {
    var comics: [Comic]
    var explanations: [Explanation]
    var statistics: IndexStatistics

    init(_ database: ComicDatabase) throws {
        let ids = try database.comicIDs()
        comics = try ids.compactMap { try database.comic($0) }
        explanations = try ids.compactMap { try database.explanation(for: $0) }
        statistics = try database.statistics()
        statistics.lastUpdate = nil
    }

    var description: String {
        "\(comics.count) comics, \(explanations.count) explanations, \(statistics)"
    }

    /// What differs, in a few words, for expectation messages.
    func differences(from other: IndexSnapshot) -> String {
        var lines: [String] = []
        let ids = Set(comics.map(\.id))
        let otherIDs = Set(other.comics.map(\.id))
        if ids != otherIDs {
            lines.append(
                "comics missing: \(otherIDs.subtracting(ids).sorted()), extra: \(ids.subtracting(otherIDs).sorted())")
        }
        let changed = comics.filter { comic in other.comics.first { $0.id == comic.id }.map { $0 != comic } ?? false }
        if !changed.isEmpty { lines.append("comics changed: \(changed.map(\.id))") }
        let explained = Set(explanations.map(\.comicID))
        let otherExplained = Set(other.explanations.map(\.comicID))
        if explained != otherExplained {
            lines.append(
                "explanations missing: \(otherExplained.subtracting(explained).sorted()), "
                    + "extra: \(explained.subtracting(otherExplained).sorted())")
        }
        if statistics != other.statistics { lines.append("statistics: \(statistics) vs \(other.statistics)") }
        return lines.joined(separator: "; ")
    }
}
