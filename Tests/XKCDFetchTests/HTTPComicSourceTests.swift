import Foundation
import Testing
import XKCDFetch
import XKCDModel
import _XKCDTestSupport

@Suite("HTTPComicSource against the fixture server", .timeLimit(.minutes(10)))
struct HTTPComicSourceTests {
    @Test func latestComicIsTheCorpusLatest() async throws {
        try await withFixtureServer { server, base in
            let raw = try await makeSource(base).latestComic()
            #expect(try XKCDJSON.decodeComic(raw.data).id == 3282)
            #expect(server.requestLog == [FixtureServer.latestPath])
        }
    }

    @Test func latestOverrideIsServed() async throws {
        try await withFixtureServer(latest: 327) { _, base in
            let raw = try await makeSource(base).latestComic()
            #expect(try XKCDJSON.decodeComic(raw.data).id == 327)
        }
    }

    @Test func comicArrivesByteForByte() async throws {
        try await withFixtureServer { server, base in
            let raw = try #require(try await makeSource(base).comic(327))
            #expect(raw.data == (try Fixtures.comicJSON(327)))
            #expect(abs(raw.fetchedAt.timeIntervalSinceNow) < 60)
            #expect(try XKCDJSON.decodeComic(raw.data).title == "Exploits of a Mom")
            #expect(server.requestCount(forPath: FixtureServer.comicPath(327)) == 1)
        }
    }

    @Test func explanationArrivesAndDecodes() async throws {
        try await withFixtureServer { server, base in
            guard case .page(let raw) = try await makeSource(base).explanation(327) else {
                Issue.record("expected a page")
                return
            }
            let page = try #require(try ExplainAPI.decode(raw.data))
            #expect(page.title == "327: Exploits of a Mom")
            #expect(page.categories.contains("All comics"))
            let request = try #require(server.requests.first)
            #expect(request.path == FixtureServer.explainPath(327))
            #expect(request.query.contains("redirects=1"))
            #expect(request.query.contains("prop=text%7Ccategories%7Crevid%7Cdisplaytitle"))
        }
    }

    @Test func userAgentNamesTheTool() async throws {
        try await withFixtureServer { server, base in
            _ = try await makeSource(base).comic(1)
            let agent = try #require(server.requests.first?.userAgent)
            #expect(agent.hasPrefix("xkcd-search/"))
            #expect(agent == HTTPComicSource.Configuration.defaultUserAgent)
        }
    }

    @Test func missingComicIsNilAndNotRetried() async throws {
        try await withFixtureServer { server, base in
            let comic = try await makeSource(base).comic(404)
            #expect(comic == nil)
            #expect(server.requestCount(forPath: FixtureServer.comicPath(404)) == 1)
        }
    }

    @Test func missingTitleIsNotWrittenYet() async throws {
        try await withFixtureServer { server, base in
            let lookup = try await makeSource(base).explanation(3282)
            #expect(lookup == .notWrittenYet)
            #expect(server.requestCount(forPath: FixtureServer.explainPath(3282)) == 1)
        }
    }

    @Test func serverErrorOnceIsRetried() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.status(500), forPath: FixtureServer.comicPath(327), times: 1)
            let raw = try #require(try await makeSource(base).comic(327))
            #expect(try XKCDJSON.decodeComic(raw.data).id == 327)
            #expect(server.requestCount(forPath: FixtureServer.comicPath(327)) == 2)
        }
    }

    @Test func serverErrorAlwaysFailsAfterMaxAttempts() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.status(500), forPath: FixtureServer.comicPath(327))
            let host = "127.0.0.1:\(base.port!)"
            let clock = RecordingClock()
            let error = await #expect(throws: FetchError.self) {
                try await makeSource(base, maxAttempts: 3, clock: clock).comic(327)
            }
            #expect(error == .httpStatus(host: host, path: "/327/info.0.json", status: 500, attempts: 3))
            // A backoff before each try after the first, with full jitter under the doubling cap.
            let sleeps = clock.sleeps
            #expect(sleeps.count == 2 && sleeps[0] <= .milliseconds(10) && sleeps[1] <= .milliseconds(20), "\(sleeps)")
            #expect(error?.description == "\(host) answered HTTP 500 for /327/info.0.json after 3 tries")
            #expect(server.requestCount(forPath: FixtureServer.comicPath(327)) == 3)
        }
    }

    @Test func otherClientErrorsAreNotRetried() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.status(403), forPath: FixtureServer.explainPath(327))
            let error = await #expect(throws: FetchError.self) { try await makeSource(base).explanation(327) }
            guard case .httpStatus(_, "/wiki/api.php?page=327", 403, 1)? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(server.requestCount(forPath: FixtureServer.explainPath(327)) == 1)
        }
    }

    @Test func tooManyRequestsHonoursRetryAfter() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.tooManyRequests(retryAfterSeconds: 1), forPath: FixtureServer.comicPath(327), times: 1)
            let clock = RecordingClock()
            let raw = try #require(try await makeSource(base, clock: clock).comic(327))
            #expect(clock.sleeps == [.seconds(1)], "the wait Retry-After asked for, instead of the backoff")
            #expect(try XKCDJSON.decodeComic(raw.data).id == 327)
            #expect(server.requestCount(forPath: FixtureServer.comicPath(327)) == 2)
        }
    }

    @Test func stallPastTheTimeoutFailsAfterRetries() async throws {
        try await withFixtureServer { server, base in
            // A stall no client waits out: the test ends only if the client gives up.
            server.setFault(.stall(seconds: 3600), forPath: FixtureServer.comicPath(327))
            let start = ContinuousClock.now
            let error = await #expect(throws: FetchError.self) {
                try await makeSource(base, maxAttempts: 2, timeout: .seconds(1)).comic(327)
            }
            #expect(error == .timedOut(host: "127.0.0.1:\(base.port!)", path: "/327/info.0.json", attempts: 2))
            // Two tries of one second each.
            #expect(start.secondsSince >= 1.9)
            // The client gives the second try up after a second, which on a loaded machine can
            // be before the server has read that request: its count may lag.
            try await waitUntil("the second try at the server") {
                server.requestCount(forPath: FixtureServer.comicPath(327)) >= 2
            }
            #expect(server.requestCount(forPath: FixtureServer.comicPath(327)) == 2)
        }
    }

    @Test func stallShorterThanTheTimeoutSucceeds() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.delay(seconds: 0.2), forPath: FixtureServer.comicPath(2))
            let comic = try await makeSource(base).comic(2)
            #expect(comic != nil)
            #expect(server.requestCount(forPath: FixtureServer.comicPath(2)) == 1)
        }
    }

    /// Decision under test: a body that is not JSON is retried once, then reported naming the path.
    @Test func truncatedJSONIsRetriedOnceThenADecodeError() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.truncatedBody, forPath: FixtureServer.comicPath(327))
            let error = await #expect(throws: FetchError.self) { try await makeSource(base).comic(327) }
            guard case .malformedJSON(let source, _)? = error else {
                Issue.record("unexpected \(String(describing: error))")
                return
            }
            #expect(source == "127.0.0.1:\(base.port!)/327/info.0.json")
            #expect(error?.description.contains("/327/info.0.json (truncated?)") == true)
            #expect(server.requestCount(forPath: FixtureServer.comicPath(327)) == 2)
        }
    }

    @Test func truncatedJSONOnceIsRecovered() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.truncatedBody, forPath: FixtureServer.explainPath(327), times: 1)
            guard case .page(let raw) = try await makeSource(base).explanation(327) else {
                Issue.record("expected a page")
                return
            }
            #expect(raw.data == (try Fixtures.explainAPIResponse(327)))
            #expect(server.requestCount(forPath: FixtureServer.explainPath(327)) == 2)
        }
    }

    @Test func bodyCutShortByTheConnectionIsRetried() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.shortBody, forPath: FixtureServer.comicPath(327), times: 1)
            let raw = try #require(try await makeSource(base).comic(327))
            #expect(raw.data == (try Fixtures.comicJSON(327)))
            #expect(server.requestCount(forPath: FixtureServer.comicPath(327)) == 2)
        }
    }

    @Test func garbageExplanationIsStillAPage() async throws {
        try await withFixtureServer { server, base in
            server.setFault(.garbage("<<<not html"), forPath: FixtureServer.explainPath(327))
            guard case .page(let raw) = try await makeSource(base).explanation(327) else {
                Issue.record("expected a page")
                return
            }
            #expect(try ExplainAPI.decode(raw.data)?.html == "<<<not html")
        }
    }

    /// A refused connection is the same a backoff later: one try, not four.
    @Test func refusedConnectionIsAConnectionErrorAndNotRetried() async throws {
        let server = FixtureServer()
        let base = try await server.start()
        await server.stop()
        let error = await #expect(throws: FetchError.self) { try await makeSource(base, maxAttempts: 4).comic(1) }
        guard case .connectionFailed(_, "/1/info.0.json", "connection refused", 1)? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    @Test func requestsPerHostAreBounded() async throws {
        try await withFixtureServer { server, base in
            // Answers are held until two requests wait at the server at once: the peak is then
            // reached whatever the machine's speed, and the bound keeps a third away.
            server.holdAnswers()
            let source = makeSource(base, perHost: 2)
            let ids = [1, 2, 3, 4, 5, 6, 7, 8]
            async let counted = withThrowingTaskGroup(of: Bool.self) { group in
                for id in ids {
                    group.addTask { try await source.comic(id) != nil }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try await waitUntil("two requests at the server") { server.requestLog.count >= 2 }
            server.releaseAnswers()
            let found = try await counted
            #expect(found == ids.count)
            #expect(server.requestLog.count == ids.count)
            #expect(server.peakConcurrentRequests(for: .xkcd) == 2)
            #expect(server.peakConcurrentRequests(for: .explain) == 0)
        }
    }
}
