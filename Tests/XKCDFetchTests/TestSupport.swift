import Foundation
import Logging
import XKCDFetch
import XKCDModel
import _XKCDTestSupport

/// A logger that drops everything; tests never touch the global logging system.
let quietLogger = Logger(label: "xkcd-search.tests", factory: { _ in SwiftLogNoOpLogHandler() })

/// An HTTP source pointed at `base` for both sites, with tiny backoffs so retries cost milliseconds.
///
/// The fixture server shares the test process's two-thread pool with every other suite, so under
/// a full parallel run a request can wait seconds: timeouts that are not under test stay generous.
/// The waits between tries go through `clock`: a ``RecordingClock`` shows which were asked for.
func makeSource(
    _ base: URL, maxAttempts: Int = 4, timeout: Duration = .seconds(120), perHost: Int = 4,
    clock: any Clock<Duration> = ContinuousClock()
) -> HTTPComicSource {
    HTTPComicSource(
        configuration: .init(
            xkcdBaseURL: base, explainBaseURL: base, maxConcurrentRequestsPerHost: perHost,
            requestTimeout: timeout,
            retryPolicy: .init(maxAttempts: maxAttempts, baseDelay: .milliseconds(10), maxDelay: .milliseconds(40)),
            clock: clock),
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

extension ContinuousClock.Instant {
    var secondsSince: Double {
        (ContinuousClock.now - self).seconds
    }
}
