import Foundation
import Logging
import XKCDFetch
import _XKCDTestSupport

/// A logger that drops everything; tests never touch the global logging system.
let quietLogger = Logger(label: "xkcd-search.tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// An HTTP source pointed at `base` for both sites, with tiny backoffs so retries cost milliseconds.
func makeSource(
    _ base: URL, maxAttempts: Int = 4, timeout: Duration = .seconds(5), perHost: Int = 4
) -> HTTPComicSource {
    HTTPComicSource(
        configuration: .init(
            xkcdBaseURL: base, explainBaseURL: base, maxConcurrentRequestsPerHost: perHost,
            requestTimeout: timeout,
            retryPolicy: .init(maxAttempts: maxAttempts, baseDelay: .milliseconds(10), maxDelay: .milliseconds(40))),
        logger: quietLogger)
}

/// Runs `body` against a fresh fixture server and stops the server afterwards, even on failure.
func withFixtureServer(
    latest: Int? = nil, _ body: (FixtureServer, URL) async throws -> Void
) async throws {
    let server = FixtureServer(latest: latest)
    let base = try await server.start()
    do {
        try await body(server, base)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// A fresh empty directory under the system temporary directory.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("xkcd-fetch-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

extension ContinuousClock.Instant {
    var secondsSince: Double {
        let elapsed = ContinuousClock.now - self
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
