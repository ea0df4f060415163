import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

/// A real HTTP server on 127.0.0.1 that answers like xkcd.com and the explain xkcd API, from a
/// directory laid out like the corpus, with faults on request.
///
/// One server plays both sites; requests are told apart by path:
///
/// | request | answer |
/// | --- | --- |
/// | `GET /info.0.json` | `xkcd/info.0.json` (or comic `latest`'s file) |
/// | `GET /N/info.0.json` | `xkcd/N/info.0.json`, or 404 |
/// | `GET /wiki/api.php?action=parse&page=N&format=json&formatversion=2…` | `explainxkcd/api/N.json`, or 200 `missingtitle` |
/// | `GET /comics/NAME` (imgs.xkcd.com's shape) | `Fixtures/images/NAME`, or 404 |
///
/// ```swift
/// let server = FixtureServer()
/// let base = try await server.start()          // http://127.0.0.1:PORT
/// defer { Task { await server.stop() } }
/// server.setFault(.status(500), forPath: FixtureServer.comicPath(327), times: 1)
/// // … point the client's xkcd and explain base URLs at `base` …
/// server.requestCount(forPath: FixtureServer.comicPath(327)) // 2
/// ```
///
/// Paths in the log and in ``setFault(_:forPath:times:)`` are the keys ``latestPath``,
/// ``comicPath(_:)`` and ``explainPath(_:)`` return; anything else is logged by its path.
public final class FixtureServer: Sendable {
    /// A way to misbehave on one path.
    public enum Fault: Sendable, Hashable {
        /// Answer this status with a short text body.
        case status(Int)
        /// 429 with `Retry-After: <seconds>`.
        case tooManyRequests(retryAfterSeconds: Int)
        /// Say nothing for this long, then answer normally (for client timeouts).
        case stall(seconds: Double)
        /// Wait this long, then answer normally (for slow runs; same as stall, different intent).
        case delay(seconds: Double)
        /// 200 with the first half of the normal body and a matching `Content-Length`: valid HTTP, broken JSON.
        case truncatedBody
        /// Announce the full `Content-Length`, send half the body, then drop the connection.
        case shortBody
        /// 200 whose body is broken content: on an explain path, a well-formed API response whose
        /// `parse.text` is this string; on an xkcd path, this string as the whole body.
        case garbage(String)
        /// Explain path: 200 `missingtitle` (xkcd path: 404), whatever the corpus holds.
        case missing
        /// 200 with exactly these bytes.
        case body(Data)
        /// 200 with `Content-Encoding: gzip` and a body that inflates to this many zero bytes (a
        /// gzip bomb: a thousandth of that on the wire), sent chunked.
        case gzipBomb(inflatedBytes: Int)
        /// 200 whose body never ends: `chunkBytes` bytes every `interval` seconds, sent chunked, so
        /// that no read waits long enough for an idle timeout.
        case endlessBody(chunkBytes: Int, interval: Double)
        /// 200 with a body of this many bytes (a JSON string), with `Content-Length` when
        /// `announced`, chunked otherwise.
        case largeBody(bytes: Int, announced: Bool)
        /// 302 with this `Location`.
        case redirect(String)
    }

    /// Which site a request was for.
    public enum Site: Sendable, Hashable {
        case xkcd
        case explain
        case images
    }

    /// One request as the server saw it.
    public struct Request: Sendable, Hashable {
        /// The log key: "/327/info.0.json", "/wiki/api.php?page=327".
        public var path: String
        public var site: Site
        /// The raw query string, "action=parse&page=327&…" (empty when none).
        public var query: String
        public var userAgent: String?
    }

    /// The corpus directory served.
    public let corpus: URL
    /// The images directory served.
    public let images: URL
    private let state: Mutex<State>

    private struct State: Sendable {
        var latest: Int?
        var faults: [String: (fault: Fault, remaining: Int?)] = [:]
        /// Requests past this many (in the whole log) are not answered while it is set.
        var answersHeldAfter: Int?
        /// Once a request for this log key arrives, the answers to the requests after it are held.
        var holdAfterPath: String?
        var log: [Request] = []
        var inFlight: [Site: Int] = [:]
        var peak: [Site: Int] = [:]
        var server: HTTPServer?
        var runTask: Task<Void, any Error>?
        var baseURL: URL?
    }

    /// - Parameters:
    ///   - corpus: A directory laid out like `Fixtures/corpus` (the default).
    ///   - latest: The comic `/info.0.json` returns; nil serves `xkcd/info.0.json` as it is.
    ///   - images: The directory `/comics/NAME` serves.
    public init(corpus: URL = Fixtures.corpusURL, latest: Int? = nil, images: URL = Fixtures.imagesURL) {
        self.corpus = corpus
        self.images = images
        self.state = Mutex(State(latest: latest))
    }

    deinit {
        let (server, task) = state.withLock { ($0.server, $0.runTask) }
        task?.cancel()
        if let server { Task { await server.stop(timeout: 0) } }
    }

    // MARK: Paths

    /// "/info.0.json"
    public static let latestPath = "/info.0.json"

    /// "/327/info.0.json"
    public static func comicPath(_ id: Int) -> String { "/\(id)/info.0.json" }

    /// "/wiki/api.php?page=327": the log key of any `action=parse` request for comic 327.
    public static func explainPath(_ id: Int) -> String { "/wiki/api.php?page=\(id)" }

    /// "/comics/exploits_of_a_mom.png": an image, as imgs.xkcd.com serves it.
    public static func imagePath(_ name: String) -> String { "/comics/\(name)" }

    // MARK: Life cycle

    /// Starts listening on an ephemeral port of 127.0.0.1 and returns `http://127.0.0.1:PORT`.
    /// Calling it again returns the same URL.
    public func start() async throws -> URL {
        if let url = state.withLock({ $0.baseURL }) { return url }
        let server = HTTPServer(
            address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 600, logger: .disabled,
            handler: ClosureHTTPHandler { [weak self] request in
                guard let self else { return HTTPResponse(statusCode: .serviceUnavailable) }
                return await self.respond(to: request)
            })
        let task = Task { try await server.run() }
        do {
            // A hang guard, not a measure: on a loaded machine the server's task may wait long
            // for a thread before it binds.
            try await server.waitUntilListening(timeout: Double(Waiting.hangGuard.components.seconds))
        } catch {
            task.cancel()
            throw error
        }
        guard case .ip4(_, let port)? = await server.listeningAddress else {  // actor-isolated
            await server.stop(timeout: 0)
            task.cancel()
            throw FixtureServerError(description: "the fixture server has no IPv4 address")
        }
        let url = URL(string: "http://127.0.0.1:\(port)")!
        state.withLock {
            $0.server = server
            $0.runTask = task
            $0.baseURL = url
        }
        return url
    }

    /// Closes the listening socket and all connections; stalled requests are cancelled.
    public func stop() async {
        let (server, task) = state.withLock { state in
            defer {
                state.server = nil
                state.runTask = nil
                state.baseURL = nil
            }
            return (state.server, state.runTask)
        }
        await server?.stop(timeout: 0)
        task?.cancel()
    }

    /// The base URL while running.
    public var baseURL: URL? { state.withLock { $0.baseURL } }

    // MARK: Behaviour

    /// Makes requests for `path` misbehave: every time (`times` nil) or for the next `times` requests.
    /// Passing nil removes the fault.
    public func setFault(_ fault: Fault?, forPath path: String, times: Int? = nil) {
        state.withLock { state in
            if let fault {
                state.faults[path] = (fault, times)
            } else {
                state.faults[path] = nil
            }
        }
    }

    /// Removes every fault.
    public func clearFaults() {
        state.withLock { $0.faults = [:] }
    }

    /// Answers the first `count` requests of the log as usual and holds the answers to every
    /// later one until ``releaseAnswers()``; requests are still logged as they arrive. With the
    /// default 0, no answer leaves the server from now on.
    ///
    /// A test that must stop a client part way (kill it, run a second one beside it) holds the
    /// answers, so the client cannot finish in the meantime however fast or slow the machine,
    /// then waits for the evidence it needs (a request logged, a comic stored). Give such a
    /// client a `--timeout` longer than the hold may last.
    public func holdAnswers(afterRequests count: Int = 0) {
        state.withLock { $0.answersHeldAfter = count }
    }

    /// Answers as usual up to and including the first request for `path` (a log key), then
    /// holds the answers to every later request until ``releaseAnswers()``.
    public func holdAnswers(afterRequestFor path: String) {
        state.withLock { $0.holdAfterPath = path }
    }

    /// Answers the held requests and every later one as usual.
    public func releaseAnswers() {
        state.withLock {
            $0.answersHeldAfter = nil
            $0.holdAfterPath = nil
        }
    }

    /// Changes the comic `/info.0.json` returns (nil: the corpus's own `xkcd/info.0.json`).
    public func setLatest(_ id: Int?) {
        state.withLock { $0.latest = id }
    }

    // MARK: What happened

    /// The log keys of all requests, in arrival order.
    public var requestLog: [String] { state.withLock { $0.log.map(\.path) } }

    /// All requests, in arrival order.
    public var requests: [Request] { state.withLock { $0.log } }

    /// How many requests arrived for `path` (a log key).
    public func requestCount(forPath path: String) -> Int {
        state.withLock { $0.log.count { $0.path == path } }
    }

    /// The most requests for `site` that were being answered at the same time.
    public func peakConcurrentRequests(for site: Site) -> Int {
        state.withLock { $0.peak[site, default: 0] }
    }

    /// Forgets the log and the concurrency peaks (faults stay).
    public func resetLog() {
        state.withLock {
            $0.log = []
            $0.peak = [:]
        }
    }

    // MARK: Answering

    private enum Route {
        case latest
        case comic(Int)
        case explain(Int)
        case image(String)
        case badRequest(String)
        case unknown
    }

    private func route(_ request: HTTPRequest) -> (Route, key: String, site: Site) {
        let path = request.path
        if path == "/wiki/api.php" {
            let query = request.query
            guard query["action"] == "parse", query["format"] == "json", query["formatversion"] == "2",
                let page = query["page"], let id = Int(page)
            else {
                return (
                    .badRequest("expected action=parse&page=N&format=json&formatversion=2"),
                    "/wiki/api.php?\(request.target.query())", .explain
                )
            }
            return (.explain(id), Self.explainPath(id), .explain)
        }
        if path == Self.latestPath { return (.latest, path, .xkcd) }
        if path.hasPrefix("/comics/"), let name = path.split(separator: "/").last, path.count > 8, !name.hasPrefix(".")
        {
            return (.image(String(name)), path, .images)
        }
        let parts = path.split(separator: "/")
        if parts.count == 2, parts[1] == "info.0.json", let id = Int(parts[0]) {
            return (.comic(id), Self.comicPath(id), .xkcd)
        }
        return (.unknown, path, path.hasPrefix("/wiki/") ? .explain : .xkcd)
    }

    private func respond(to request: HTTPRequest) async -> HTTPResponse {
        let (route, key, site) = route(request)
        let (fault, latest, ordinal) = state.withLock { state -> (Fault?, Int?, Int) in
            state.log.append(
                Request(
                    path: key, site: site, query: request.target.query(),
                    userAgent: request.headers[HTTPHeader("User-Agent")]))
            state.inFlight[site, default: 0] += 1
            state.peak[site] = max(state.peak[site, default: 0], state.inFlight[site, default: 0])
            var fault: Fault?
            if let entry = state.faults[key] {
                fault = entry.fault
                if let remaining = entry.remaining {
                    state.faults[key] = remaining <= 1 ? nil : (entry.fault, remaining - 1)
                }
            }
            if key == state.holdAfterPath {
                state.answersHeldAfter = state.log.count
                state.holdAfterPath = nil
            }
            return (fault, state.latest, state.log.count)
        }
        defer { state.withLock { $0.inFlight[site, default: 1] -= 1 } }

        while state.withLock({ $0.answersHeldAfter.map { ordinal > $0 } ?? false }), !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(10))
        }

        switch fault {
        case .status(let code)?:
            return Self.text("HTTP \(code)\n", status: code)
        case .tooManyRequests(let seconds)?:
            var response = Self.text("slow down\n", status: 429)
            response.headers[HTTPHeader("Retry-After")] = String(seconds)
            return response
        case .stall(let seconds)?, .delay(let seconds)?:
            do {
                try await Task.sleep(for: .seconds(seconds))
            } catch {
                return Self.text("stopped\n", status: 503)
            }
        case .garbage(let text)?:
            if case .explain(let id) = route {
                let body: [String: Any] = [
                    "parse": ["title": "\(id): Garbage", "revid": 1, "text": text, "categories": [] as [Any]]
                ]
                return Self.json((try? JSONSerialization.data(withJSONObject: body)) ?? Data())
            }
            return Self.json(Data(text.utf8))
        case .missing?:
            if case .explain = route { return Self.json(Self.missingTitle) }
            return Self.text("404 Not Found\n", status: 404)
        case .body(let data)?:
            return Self.json(data)
        case .gzipBomb(let size)?:
            let compressed = Self.gzippedZeros(size)
            var response = HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json"],
                body: HTTPBodySequence(
                    from: GeneratedBody(chunk: { index in
                        let start = index * 65536
                        return start < compressed.count
                            ? [UInt8](compressed[start..<min(compressed.count, start + 65536)]) : nil
                    })))
            response.headers[HTTPHeader("Content-Encoding")] = "gzip"
            return response
        case .endlessBody(let chunkBytes, let interval)?:
            let body = GeneratedBody(chunk: { index in
                if index > 0 { try await Task.sleep(for: .seconds(interval)) }
                return [UInt8](repeating: 0x20, count: chunkBytes)
            })
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json"], body: HTTPBodySequence(from: body))
        case .largeBody(let bytes, let announced)?:
            let body = GeneratedBody(chunk: { index in
                let start = index * 65536
                guard start < bytes else { return nil }
                let count = min(65536, bytes - start)
                if start == 0 { return Array("{\"x\":\"".utf8) + [UInt8](repeating: 0x61, count: count - 6) }
                return [UInt8](repeating: 0x61, count: count)
            })
            let sequence = announced ? HTTPBodySequence(from: body, count: bytes) : HTTPBodySequence(from: body)
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: sequence)
        case .redirect(let location)?:
            var response = Self.text("moved\n", status: 302)
            response.headers[.location] = location
            return response
        case .truncatedBody?, .shortBody?, .none:
            break
        }

        let response = normalResponse(route, latest: latest)
        guard fault == .truncatedBody || fault == .shortBody, response.statusCode.code == 200,
            let body = try? await response.bodyData
        else {
            return response
        }
        let half = [UInt8](body.prefix(body.count / 2))
        let cut: HTTPBodySequence
        if fault == .shortBody {
            cut = HTTPBodySequence(from: BrokenBody(bytes: half), count: body.count)
        } else {
            cut = HTTPBodySequence(data: Data(half))
        }
        return HTTPResponse(statusCode: response.statusCode, headers: response.headers, body: cut)
    }

    private func normalResponse(_ route: Route, latest: Int?) -> HTTPResponse {
        switch route {
        case .latest:
            let path = latest.map { "xkcd/\($0)/info.0.json" } ?? "xkcd/info.0.json"
            return file(path) ?? Self.text("404 Not Found\n", status: 404)
        case .comic(let id):
            return file("xkcd/\(id)/info.0.json") ?? Self.text("404 Not Found\n", status: 404)
        case .explain(let id):
            return file("explainxkcd/api/\(id).json") ?? Self.json(Self.missingTitle)
        case .image(let name):
            guard let data = try? Data(contentsOf: images.appendingPathComponent(name)) else {
                return Self.text("404 Not Found\n", status: 404)
            }
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: "image/\(name.split(separator: ".").last ?? "png")"],
                body: data)
        case .badRequest(let message):
            let body = #"{"error":{"code":"badrequest","info":"\#(message)"}}"#
            return Self.json(Data(body.utf8), status: 400)
        case .unknown:
            return Self.text("404 Not Found\n", status: 404)
        }
    }

    private func file(_ relativePath: String) -> HTTPResponse? {
        guard let data = try? Data(contentsOf: corpus.appendingPathComponent(relativePath)) else { return nil }
        return Self.json(data)
    }

    /// What the wiki answers (HTTP 200) for a page that does not exist.
    static let missingTitle = Data(
        #"{"error":{"code":"missingtitle","info":"The page you specified doesn't exist.","docref":"See https://www.explainxkcd.com/wiki/api.php for API usage."}}"#
            .utf8)

    private static func json(_ data: Data, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: phrase(status)),
            headers: [.contentType: "application/json; charset=utf-8"], body: data)
    }

    private static func text(_ text: String, status: Int) -> HTTPResponse {
        HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: phrase(status)),
            headers: [.contentType: "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    private static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}

/// A failure to start the fixture server.
public struct FixtureServerError: Error, CustomStringConvertible {
    public var description: String
}
