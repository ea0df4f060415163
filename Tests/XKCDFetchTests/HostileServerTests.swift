import Foundation
import Testing
import XKCDFetch
import _XKCDTestSupport

/// Responses a hostile or broken server sends: each is cut off at its limit or refused, with a
/// reason, and never held whole in memory.
@Suite("HTTPComicSource against a hostile server", .timeLimit(.minutes(10)))
struct HostileServerTests {
    func source(_ base: URL, deadline: Duration = .seconds(300), maxAttempts: Int = 1) -> HTTPComicSource {
        HTTPComicSource(
            configuration: .init(
                xkcdBaseURL: base, explainBaseURL: base, requestTimeout: .seconds(120), requestDeadline: deadline,
                retryPolicy: .init(maxAttempts: maxAttempts, baseDelay: .milliseconds(10), maxDelay: .milliseconds(40))),
            logger: quietLogger)
    }

    func expectRefusal(
        _ base: URL, _ fault: FixtureServer.Fault, saying reason: String, server: FixtureServer,
        deadline: Duration = .seconds(300), sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        server.setFault(fault, forPath: FixtureServer.comicPath(327))
        let error = await #expect(throws: FetchError.self, sourceLocation: sourceLocation) {
            try await source(base, deadline: deadline).comic(327)
        }
        guard case .refused(_, let path, let said, _)? = error else {
            Issue.record("\(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(path == "/327/info.0.json", sourceLocation: sourceLocation)
        #expect(said.contains(reason), "\(said)", sourceLocation: sourceLocation)
    }

    @Test func aGzipBombIsCutOffAtTheLimit() async throws {
        try await withFixtureServer { server, base in
            // The client stops at 4 MB: the refusal says so.
            await expectRefusal(
                base, .gzipBomb(inflatedBytes: 64 << 20), saying: "larger than the limit of 4 MB", server: server)
        }
    }

    @Test(arguments: [true, false])
    func aLargeBodyIsRefused(announced: Bool) async throws {
        try await withFixtureServer { server, base in
            await expectRefusal(
                base, .largeBody(bytes: 50 << 20, announced: announced), saying: "larger than the limit of 4 MB",
                server: server)
        }
    }

    @Test func aBodyThatNeverEndsMeetsTheDeadline() async throws {
        try await withFixtureServer { server, base in
            let start = ContinuousClock.now
            await expectRefusal(
                base, .endlessBody(chunkBytes: 16, interval: 0.1), saying: "not finished within 2 s", server: server,
                deadline: .seconds(2))
            // The refusal names the deadline; a body that never ends is never waited out (the
            // suite's time limit would end the test).
            #expect(start.secondsSince >= 1.9)
        }
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/327/info.0.json", "http://example.com/327/info.0.json"])
    func aRedirectElsewhereIsNotFollowed(_ location: String) async throws {
        try await withFixtureServer { server, base in
            await expectRefusal(base, .redirect(location), saying: "redirected to \(location)", server: server)
            #expect(server.requestLog.allSatisfy { $0 == FixtureServer.comicPath(327) }, "\(server.requestLog)")
        }
    }

    /// The same host on another port is another server: not followed.
    @Test func aRedirectToAnotherPortOfTheHostIsNotFollowed() async throws {
        try await withFixtureServer { server, base in
            let port = try #require(base.port)
            let location = "http://127.0.0.1:\(port == 65535 ? port - 1 : port + 1)/327/info.0.json"
            await expectRefusal(base, .redirect(location), saying: "redirected to \(location)", server: server)
        }
    }

    @Test func aRedirectOnTheSameSiteIsFollowed() async throws {
        try await withFixtureServer { server, base in
            server.setFault(
                .redirect(base.absoluteString + "/327/info.0.json"), forPath: FixtureServer.comicPath(327), times: 1)
            let response = try #require(try await source(base).comic(327))
            #expect(try XKCDJSON.comicID(response.data) == 327)
            #expect(server.requestLog.count == 2, "the redirect, then the comic: \(server.requestLog)")
        }
    }

    @Test func aRedirectLoopIsSaidToBeOne() async throws {
        try await withFixtureServer { server, base in
            await expectRefusal(
                base, .redirect(base.absoluteString + "/327/info.0.json"), saying: "redirected more than 5 times",
                server: server)
        }
    }

    /// Images come from a host of their own (imgs.xkcd.com), which may redirect within itself.
    @Test func anImageHostsRedirectWithinItselfIsFollowed() async throws {
        try await withFixtureServer { server, base in
            let images = FixtureServer()
            let imageBase = try await images.start()
            images.setFault(
                .redirect(imageBase.absoluteString + FixtureServer.imagePath("dependency.png")),
                forPath: FixtureServer.imagePath("moved.png"))
            let url = try #require(URL(string: imageBase.absoluteString + FixtureServer.imagePath("moved.png")))
            let fetched: Result<RawResponse?, any Error>
            do { fetched = .success(try await source(base).image(at: url)) } catch { fetched = .failure(error) }
            await images.stop()
            let response = try #require(try fetched.get())
            #expect(response.data == (try Fixtures.image("dependency.png")))
            #expect(server.requestLog.isEmpty, "\(server.requestLog)")
        }
    }

    @Test func aResponseForAnotherNumberIsRefused() async throws {
        try await withFixtureServer { server, base in
            let other = try Data(contentsOf: Fixtures.corpusURL.appendingPathComponent("xkcd/149/info.0.json"))
            for (number, body) in [
                (149, other), (99999, Fixtures.renumbered(other, 99999)), (0, Fixtures.renumbered(other, 0)),
            ] {
                server.setFault(.body(body), forPath: FixtureServer.comicPath(327))
                let error = await #expect(throws: FetchError.self) { try await source(base).comic(327) }
                #expect(
                    error?.description.contains("it is comic #\(number), not #327") == true,
                    "\(String(describing: error))")
            }
        }
    }

    @Test func anExplanationOfAnotherComicIsRefused() async throws {
        try await withFixtureServer { server, base in
            let other = try Data(contentsOf: Fixtures.corpusURL.appendingPathComponent("explainxkcd/api/149.json"))
            server.setFault(.body(other), forPath: FixtureServer.explainPath(327))
            let error = await #expect(throws: FetchError.self) { try await source(base).explanation(327) }
            #expect(
                error?.description.contains("the page is '149: Sandwich', not #327's") == true,
                "\(String(describing: error))")
        }
    }
}
