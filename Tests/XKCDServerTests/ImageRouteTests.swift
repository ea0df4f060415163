import Foundation
import HTTPTypes
import Logging
import NIOCore
import Synchronization
import Testing
import XKCDFiles
import XKCDKit
import XKCDServer
import _XKCDTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keeps what the server logs: a test waits for what the server says it is doing.
final class RecordedLog: Sendable {
    let lines = Mutex<[String]>([])

    var logger: Logger {
        var logger = Logger(label: "xkcd-server-tests") { _ in Handler(log: self) }
        logger.logLevel = .debug
        return logger
    }

    func count(containing text: String) -> Int { lines.withLock { $0.count { $0.contains(text) } } }

    private struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.lines.withLock { $0.append(event.message.description) }
        }
    }
}

/// A server over the shared index whose images come from a fixture server into a cache of its
/// own, with a clock the test moves.
private final class ImageHarness: Sendable {
    let fixtures = FixtureServer()
    let images: URL
    /// How far the server's clock is ahead of the real one.
    let clockAhead = Mutex<TimeInterval>(0)
    let log = RecordedLog()

    init() throws {
        images = try makeTemporaryDirectory("xkcd-server-images")
    }

    func server(_ base: URL, deadline: Duration = .seconds(600)) async throws -> APIServer {
        return try await Harness.make().server(
            .init(
                port: 0, requestDeadline: deadline, imageBaseURL: base, imageTimeout: .seconds(300),
                now: { [self] in Date().addingTimeInterval(clockAhead.withLock { $0 }) }),
            images: images, logger: log.logger)
    }

    var kept: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? []).filter { $0 != "missing" }
    }
}

private func get(_ port: Int, _ path: String) async throws -> (status: Int, type: String?, body: Data) {
    let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    let http = response as? HTTPURLResponse
    return (http?.statusCode ?? 0, http?.value(forHTTPHeaderField: "Content-Type"), data)
}

@Suite("HTTP API: /images/{n} against the fixture image server")
struct ImageRouteTests {
    /// Four requests for an image the cache lacks while its server holds the answer: one fetch,
    /// four answers with its bytes, then kept and served from the cache.
    @Test func aMissingImageIsFetchedOnceKeptAndServed() async throws {
        let harness = try ImageHarness()
        let base = try await harness.fixtures.start()
        defer { Task { await harness.fixtures.stop() } }
        let path = FixtureServer.imagePath("exploits_of_a_mom.png")
        let expected = try Fixtures.image("exploits_of_a_mom.png")
        harness.fixtures.holdAnswers()
        try await harness.server(base).testLive { client in
            let port = client.port
            let answers = try await withThrowingTaskGroup(of: (status: Int, type: String?, body: Data).self) { group in
                for _ in 0..<4 { group.addTask { try await get(port, "/images/327") } }
                try await waitUntil("one fetch asked for, three requests waiting for it") {
                    harness.fixtures.requestCount(forPath: path) == 1
                        && harness.log.count(containing: "waiting for the fetch under way") == 3
                }
                harness.fixtures.releaseAnswers()
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 4)
            for answer in answers {
                #expect(
                    answer.status == 200 && answer.type == "image/png" && answer.body == expected, "\(answer.status)")
            }
            #expect(harness.kept == ["327-exploits_of_a_mom.png"])
            let tag = try await client.execute(uri: "/images/327", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "public, max-age=604800")
                #expect(Data(response.body.readableBytesView) == expected)
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/images/327", method: .get, headers: [.ifNoneMatch: tag]) {
                #expect($0.status == .notModified)
            }
            #expect(harness.fixtures.requestCount(forPath: path) == 1, "served from the cache")
        }
    }

    /// A damaged PNG (a download cut short) is refused with 502, not kept, and not asked for
    /// again while remembered.
    @Test func aDamagedImageIsRefusedAndNotKept() async throws {
        let harness = try ImageHarness()
        let base = try await harness.fixtures.start()
        defer { Task { await harness.fixtures.stop() } }
        let path = FixtureServer.imagePath("password_strength.png")
        harness.fixtures.setFault(.body(try Fixtures.image("damaged.png")), forPath: path)
        try await harness.server(base).testLive { client in
            try await client.execute(uri: "/images/936", method: .get) { response in
                #expect(response.status == .badGateway)
                #expect(errorCode(response) == "bad-image", "\(text(response))")
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            }
            #expect(harness.kept.isEmpty)
            try await client.execute(uri: "/images/936", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(errorCode(response) == "image-unavailable")
            }
            #expect(harness.fixtures.requestCount(forPath: path) == 1)
        }
    }

    /// Offline (nothing listens) is a 404; a failing image server is asked once, then left alone
    /// until the remembered failure expires, then asked again.
    @Test func aFailureIsRememberedUntilItExpires() async throws {
        let harness = try ImageHarness()
        let offline = FixtureServer()
        let nothingThere = try await offline.start()
        await offline.stop()
        try await harness.server(nothingThere).testLive { client in
            try await client.execute(uri: "/images/327", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(errorCode(response) == "image-unavailable", "\(text(response))")
                #expect(!text(response).contains("127.0.0.1"), "nothing of the image server's address")
            }
        }

        let base = try await harness.fixtures.start()
        defer { Task { await harness.fixtures.stop() } }
        let path = FixtureServer.imagePath("password_strength.png")
        harness.fixtures.setFault(.status(503), forPath: path)
        try await harness.server(base).testLive { client in
            try await client.execute(uri: "/images/936", method: .get) { #expect($0.status == .notFound) }
            let asked = harness.fixtures.requestCount(forPath: path)
            #expect(asked >= 1)
            harness.fixtures.setFault(nil, forPath: path)
            try await client.execute(uri: "/images/936", method: .get) { #expect($0.status == .notFound) }
            #expect(harness.fixtures.requestCount(forPath: path) == asked, "remembered: not asked again")
            harness.clockAhead.withLock { $0 = ImageCache.missingFor + 1 }
            try await client.execute(uri: "/images/936", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
            }
            #expect(harness.fixtures.requestCount(forPath: path) == asked + 1)
        }
    }

    @Test func comicsWithoutAnImageOrUnknown() async throws {
        let harness = try ImageHarness()
        try await harness.server(URL(string: "http://127.0.0.1:9")!).testLive { client in
            for (uri, status, code) in [
                ("/images/1663", HTTPResponse.Status.notFound, "no-image"), ("/images/99999", .notFound, "not-found"),
                ("/images/abc", .badRequest, "bad-comic"), ("/images/latest", .badRequest, "bad-comic"),
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                    #expect(errorCode(response) == code, "\(uri): \(text(response))")
                }
            }
        }
    }

    /// An image server that holds its answer makes the request slow for a real reason: the
    /// deadline (1 s here) answers 503 `deadline` instead of holding the connection.
    @Test func aRequestPastTheDeadlineIs503() async throws {
        let harness = try ImageHarness()
        let base = try await harness.fixtures.start()
        defer { Task { await harness.fixtures.stop() } }
        harness.fixtures.holdAnswers()
        try await harness.server(base, deadline: .seconds(1)).testLive { client in
            try await client.execute(uri: "/images/327", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(errorCode(response) == "deadline", "\(text(response))")
            }
            // On a busy machine the deadline may pass before the fetch has even reached the image
            // server: wait for it to arrive, then see that it is asked once.
            let path = FixtureServer.imagePath("exploits_of_a_mom.png")
            try await waitUntil("the image server was asked") { harness.fixtures.requestCount(forPath: path) >= 1 }
            #expect(harness.fixtures.requestCount(forPath: path) == 1)
            harness.fixtures.releaseAnswers()
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }
}
