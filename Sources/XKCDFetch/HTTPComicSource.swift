import Foundation
import Logging
import XKCDModel

/// Fetches comics from xkcd.com and explanations from the explain xkcd wiki over HTTP.
///
/// Requests to one host are bounded (``Configuration/maxConcurrentRequestsPerHost``); timeouts,
/// broken connections, 5xx and 429 answers are retried with exponential backoff and full jitter,
/// honouring `Retry-After` on 429 and 503. A host that is not found or refuses the connection
/// is not asked again: that does not get better within a backoff. HTTP 404 for a comic means "no such comic" (#404 is
/// missing on purpose) and is never retried; other 4xx answers fail at once.
///
/// ```swift
/// let source = HTTPComicSource(configuration: .init(), logger: logger)
/// if let raw = try await source.comic(327) {
///     let comic = try XKCDJSON.decodeComic(raw.data)
/// }
/// ```
///
/// A body that is not JSON (a truncated download) is retried once: truncation is usually the
/// transport's fault, but a server that always sends garbage should not cost four backoffs. The
/// check is a decode with ``XKCDJSON`` or ``ExplainAPI``, so whatever this source returns decodes.
public struct HTTPComicSource: ComicSource {
    public struct Configuration: Sendable {
        public static let defaultUserAgent =
            "xkcd-search/0.1 (+https://github.com/xkcd-search; offline search for xkcd)"

        public var xkcdBaseURL: URL
        public var explainBaseURL: URL
        public var maxConcurrentRequestsPerHost: Int
        /// How long one try may go without an answer.
        public var requestTimeout: Duration
        /// How long one try may take in all, however steadily bytes arrive.
        public var requestDeadline: Duration
        /// The largest body accepted, counted after gzip is inflated (and announced by
        /// `Content-Length`, which counts the bytes sent). The largest explain xkcd page is
        /// about 400 KB, a comic's JSON a few KB.
        public var maxResponseBytes: Int
        public var retryPolicy: RetryPolicy
        public var userAgent: String
        /// What the waits between tries sleep on: a test gives a clock of its own, to see which
        /// waits were asked for without spending them.
        public var clock: any Clock<Duration>

        public init(
            xkcdBaseURL: URL = URL(string: "https://xkcd.com")!,
            explainBaseURL: URL = URL(string: "https://www.explainxkcd.com")!,
            maxConcurrentRequestsPerHost: Int = 4,
            requestTimeout: Duration = .seconds(30),
            requestDeadline: Duration = .seconds(120),
            maxResponseBytes: Int = 4 << 20,
            retryPolicy: RetryPolicy = RetryPolicy(),
            userAgent: String = Configuration.defaultUserAgent,
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.xkcdBaseURL = xkcdBaseURL
            self.explainBaseURL = explainBaseURL
            self.maxConcurrentRequestsPerHost = maxConcurrentRequestsPerHost
            self.requestTimeout = requestTimeout
            self.requestDeadline = requestDeadline
            self.maxResponseBytes = maxResponseBytes
            self.retryPolicy = retryPolicy
            self.userAgent = userAgent
            self.clock = clock
        }
    }

    /// When and how often to try again.
    ///
    /// The wait before try `n + 1` is a random duration in `0...min(maxDelay, baseDelay * 2^(n-1))`
    /// ("full jitter"), or exactly that cap when `usesJitter` is false. A `Retry-After: <seconds>`
    /// header on 429/503 replaces it, capped at `maxRetryAfter`.
    public struct RetryPolicy: Sendable {
        /// Tries in all, the first included.
        public var maxAttempts: Int
        public var baseDelay: Duration
        public var maxDelay: Duration
        public var maxRetryAfter: Duration
        public var usesJitter: Bool
        /// Tries in all for a body that is not JSON (counted within `maxAttempts`).
        public var maxMalformedBodyAttempts: Int

        public init(
            maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
            maxRetryAfter: Duration = .seconds(60), usesJitter: Bool = true, maxMalformedBodyAttempts: Int = 2
        ) {
            self.maxAttempts = max(1, maxAttempts)
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
            self.maxRetryAfter = maxRetryAfter
            self.usesJitter = usesJitter
            self.maxMalformedBodyAttempts = max(1, maxMalformedBodyAttempts)
        }

        /// The backoff before the try after try number `attempt` (1-based).
        public func delay(afterAttempt attempt: Int) -> Duration {
            let exponent = min(max(attempt - 1, 0), 30)
            let cap = min(maxDelay.seconds, baseDelay.seconds * Double(1 << exponent))
            let seconds = usesJitter ? Double.random(in: 0...max(cap, 0)) : cap
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }

        /// The wait a `Retry-After` value asks for, capped; nil unless it is a number of seconds.
        func delay(retryAfter value: String?) -> Duration? {
            guard let value, let seconds = Double(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
                return nil
            }
            return .milliseconds(Int64((min(seconds, maxRetryAfter.seconds) * 1000).rounded()))
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    private let client: Client

    public init(configuration: Configuration = Configuration(), logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.client = Client(configuration: configuration)
    }

    public func latestComic() async throws -> RawResponse {
        let url = configuration.xkcdBaseURL.appendingPathComponent("info.0.json")
        let fetched = try await fetch(url, label: "/info.0.json", notFoundMeansAbsent: false) {
            data, source throws(FetchError) in
            _ = try XKCDJSON.decodeComic(data, source: source)
        }
        guard let (response, _) = fetched else {
            // Unreachable: 404 is only "absent" when notFoundMeansAbsent is set.
            throw FetchError.httpStatus(host: client.hostKey(url), path: "/info.0.json", status: 404, attempts: 1)
        }
        return response
    }

    public func comic(_ id: Int) async throws -> RawResponse? {
        let url = configuration.xkcdBaseURL.appendingPathComponent("\(id)/info.0.json")
        let fetched = try await fetch(url, label: "/\(id)/info.0.json", notFoundMeansAbsent: true) {
            data, source throws(FetchError) in
            // Another number would be stored in that comic's place, or as a comic that does not exist.
            let number = try XKCDJSON.decodeComic(data, source: source).id
            guard number == id else {
                throw .unexpectedJSON(source: source, detail: "it is comic #\(number), not #\(id)")
            }
        }
        return fetched?.response
    }

    public func explanation(_ id: Int) async throws -> ExplainLookup {
        var components = URLComponents(
            url: configuration.explainBaseURL.appendingPathComponent("wiki/api.php"), resolvingAgainstBaseURL: false)!
        components.queryItems = ExplainAPI.queryItems(forComic: id)
        // URLComponents leaves "|" alone on some platforms; the wiki's own links encode it.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "|", with: "%7C")
        let url = components.url!
        let fetched = try await fetch(url, label: "/wiki/api.php?page=\(id)", notFoundMeansAbsent: false) {
            data, source throws(FetchError) in
            guard let page = try ExplainAPI.decode(data, source: source) else { return false }
            // The wiki names a comic's page "327: Exploits of a Mom".
            guard page.title.hasPrefix("\(id):") else {
                throw .unexpectedJSON(source: source, detail: "the page is '\(page.title.prefix(60))', not #\(id)'s")
            }
            return true
        }
        guard let (response, hasPage) = fetched, hasPage else { return .notWrittenYet }
        return .page(response)
    }

    /// A comic's image (the JSON's `img`, or the same path on another host); nil for HTTP 404.
    /// Fetched like the rest: the same retries, per-host limit and User-Agent.
    public func image(at url: URL) async throws -> RawResponse? {
        try await fetch(url, label: url.path, notFoundMeansAbsent: true) { _, _ throws(FetchError) in }?.response
    }

    // MARK: - The retry loop

    /// GETs `url` until it succeeds, the answer is final, or the tries run out.
    ///
    /// - Parameters:
    ///   - url: The address to GET.
    ///   - label: The path shown in errors and logs, "/327/info.0.json".
    ///   - notFoundMeansAbsent: Whether HTTP 404 means the thing does not exist (return nil) rather
    ///     than an error.
    ///   - validate: Throws for a body that is unusable; malformed JSON and transient API errors
    ///     are retried.
    /// - Returns: The response and what `validate` made of it; nil for HTTP 404 when
    ///   `notFoundMeansAbsent`.
    /// - Throws: `CancellationError` when the task is cancelled; otherwise a ``FetchError``. It
    ///   comes at once when asking again cannot help (the request refused for good or unusable,
    ///   the host unknown or unreachable, libcurl missing, an HTTP status other than 408, 429 and
    ///   5xx, a 404 unless `notFoundMeansAbsent`, or an error from `validate` that is not
    ///   retried), and after the last try for the rest (time-outs, lost connections, incomplete
    ///   bodies, 408, 429, 5xx, malformed JSON, transient API errors).
    private func fetch<Checked>(
        _ url: URL, label: String, notFoundMeansAbsent: Bool,
        validate: (Data, String) throws(FetchError) -> Checked
    ) async throws -> (response: RawResponse, checked: Checked)? {
        let policy = configuration.retryPolicy
        let host = client.hostKey(url)
        let source = "\(host)\(label)"
        var malformedBodies = 0
        var attempt = 0
        let request = Transfers.Request(
            url: url, headers: ["User-Agent": configuration.userAgent, "Accept": "application/json"])

        while true {
            attempt += 1
            let isLastAttempt = attempt >= policy.maxAttempts
            var retryAfter: Duration?
            let failure: FetchError

            logger.debug("GET \(source)", metadata: ["attempt": "\(attempt)"])
            let outcome = await client.perform(request, host: host)
            try Task.checkCancellation()

            switch outcome {
            case .failure(let refusal as Transfers.Refusal):
                let refused = FetchError.refused(host: host, path: label, reason: refusal.reason, attempts: attempt)
                guard refusal.isRetryable else { throw refused }
                failure = refused
            case .failure(Transfers.Failure.libraryMissing(let reason)):
                throw FetchError.libraryMissing(reason: reason)
            case .failure(let error):
                guard let transferError = error as? Transfers.Failure else {
                    if error is CancellationError { throw error }
                    throw FetchError.connectionFailed(host: host, path: label, reason: "\(error)", attempts: attempt)
                }
                switch transferError {
                case .timedOut:
                    failure = .timedOut(host: host, path: label, attempts: attempt)
                case .cancelled:
                    throw CancellationError()
                case .badURL, .unsupportedURL, .notStarted, .libraryMissing:
                    // Asking again cannot help.
                    throw FetchError.connectionFailed(
                        host: host, path: label, reason: Self.reason(transferError), attempts: attempt)
                case .cannotConnectToHost, .cannotFindHost, .notConnectedToInternet:
                    // No such host, no route, connection refused: the answer comes at once and
                    // is the same a second later. Retrying made every offline `show` wait
                    // 1 to 2.4 s of backoff for nothing.
                    throw FetchError.connectionFailed(
                        host: host, path: label, reason: Self.reason(transferError), attempts: attempt)
                case .secureConnectionFailed, .networkConnectionLost, .badServerResponse:
                    // Reset, cut short ("transfer closed with N bytes remaining")…
                    failure = .connectionFailed(
                        host: host, path: label, reason: Self.reason(transferError), attempts: attempt)
                }

            case .success(let (data, response)):
                let status = response.statusCode
                switch status {
                case 200..<300:
                    if let expected = Self.expectedLength(response), expected != data.count {
                        failure = .incompleteBody(
                            host: host, path: label, expected: expected, received: data.count, attempts: attempt)
                        break
                    }
                    do throws(FetchError) {
                        let checked = try validate(data, source)
                        return (RawResponse(data: data, fetchedAt: Date()), checked)
                    } catch {
                        switch error {
                        case .malformedJSON:
                            malformedBodies += 1
                            guard malformedBodies < policy.maxMalformedBodyAttempts else { throw error }
                        case .apiError(_, let code, _) where ExplainAPI.isTransient(code: code):
                            retryAfter = policy.delay(retryAfter: Self.header("Retry-After", in: response))
                        default:
                            throw error
                        }
                        failure = error
                    }
                case 404 where notFoundMeansAbsent:
                    logger.debug("\(source) does not exist (HTTP 404)")
                    return nil
                case 429:
                    retryAfter = policy.delay(retryAfter: Self.header("Retry-After", in: response))
                    failure = .rateLimited(host: host, path: label, attempts: attempt)
                case 503:
                    retryAfter = policy.delay(retryAfter: Self.header("Retry-After", in: response))
                    failure = .httpStatus(host: host, path: label, status: status, attempts: attempt)
                case 408, 500..<600:
                    failure = .httpStatus(host: host, path: label, status: status, attempts: attempt)
                default:
                    throw FetchError.httpStatus(host: host, path: label, status: status, attempts: attempt)
                }
            }

            if isLastAttempt {
                logger.warning("giving up on \(source): \(failure)")
                throw failure
            }
            let wait = retryAfter ?? policy.delay(afterAttempt: attempt)
            logger.notice(
                "retrying \(source)",
                metadata: ["attempt": "\(attempt)", "error": "\(failure)", "wait": "\(wait)"])
            try await configuration.clock.sleep(for: wait)
        }
    }

    private static func header(_ name: String, in response: Transfers.Response) -> String? {
        response.headers[name.lowercased()]
    }

    /// The announced body length, unless a content coding makes it count other bytes than ours.
    private static func expectedLength(_ response: Transfers.Response) -> Int? {
        if let coding = header("Content-Encoding", in: response), coding.lowercased() != "identity" { return nil }
        guard let value = header("Content-Length", in: response) else { return nil }
        return Int(value.trimmingCharacters(in: .whitespaces))
    }

    private static func reason(_ error: Transfers.Failure) -> String {
        switch error {
        case .cannotConnectToHost: "connection refused"
        case .networkConnectionLost: "connection lost"
        case .cannotFindHost: "host not found"
        case .notConnectedToInternet: "no route to the host"
        case .secureConnectionFailed: "TLS handshake failed"
        case .timedOut: "timed out"
        case .badURL: "bad URL"
        case .unsupportedURL: "unsupported URL"
        case .badServerResponse: "no HTTP response"
        case .cancelled: "cancelled"
        case .notStarted: "libcurl could not start a transfer"
        case .libraryMissing(let reason): reason
        }
    }
}

extension HTTPComicSource {
    /// Performs requests through libcurl (``Transfers``) and holds the per-host limit.
    private final class Client: Sendable {
        private let transfers: Transfers
        private let limiter: HostLimiter

        init(configuration: Configuration) {
            // Whole seconds, at least one: libcurl's low-speed limit counts in seconds.
            let idleSeconds = max(1, configuration.requestTimeout.seconds.rounded(.up))
            transfers = Transfers(
                limits: Transfers.Limits(
                    maxBodyBytes: configuration.maxResponseBytes, deadline: configuration.requestDeadline,
                    idleTimeout: .seconds(idleSeconds),
                    hosts: Set(
                        [configuration.xkcdBaseURL, configuration.explainBaseURL].compactMap(Transfers.Limits.site(of:))
                    )))
            self.limiter = HostLimiter(limit: configuration.maxConcurrentRequestsPerHost)
        }

        /// "xkcd.com", or "127.0.0.1:8080" when a port is given.
        func hostKey(_ url: URL) -> String {
            let host = url.host ?? "localhost"
            return url.port.map { "\(host):\($0)" } ?? host
        }

        func perform(_ request: Transfers.Request, host: String) async -> Result<(Data, Transfers.Response), any Error>
        {
            await limiter.acquire(host)
            let result = await transfers.run(request)
            await limiter.release(host)
            return result
        }
    }
}

/// A counting semaphore per host: at most `limit` requests in flight to one host, first come first served.
actor HostLimiter {
    private let limit: Int
    private var inFlight: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    func acquire(_ host: String) async {
        if inFlight[host, default: 0] < limit {
            inFlight[host, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    /// Hands the slot to the next waiter, if any, without letting a newcomer jump the queue.
    func release(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            next.resume()
        } else {
            inFlight[host, default: 1] -= 1
        }
    }
}
