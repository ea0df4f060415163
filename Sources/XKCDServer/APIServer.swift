import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import XKCDKit

/// The HTTP JSON API over the index (`xkcd-search serve`): the same documents as the command
/// line's `--json` (``JSONDocument``), with JSON errors (``APIError``).
///
/// ```swift
/// let server = APIServer(configuration: .init(), database: database, logger: logger)
/// try await server.run { url in print("serving \(url)") }
/// ```
public struct APIServer: Sendable {
    public struct Configuration: Sendable {
        /// The address to bind: loopback unless asked otherwise.
        public var host: String
        /// 0 asks the system for a free port (the tests' choice).
        public var port: Int
        /// Favourites may not be changed.
        public var isReadOnly: Bool
        /// Further names the `Host` header may give (a public name behind a proxy).
        public var allowedHosts: [String]
        /// A connection that sends nothing for this long is closed: a client that opens
        /// connections and never finishes a request must not hold them.
        public var idleTimeout: Duration

        public init(
            host: String = "127.0.0.1", port: Int = 8080, isReadOnly: Bool = false, allowedHosts: [String] = [],
            idleTimeout: Duration = .seconds(60)
        ) {
            self.host = host
            self.port = port
            self.isReadOnly = isReadOnly
            self.allowedHosts = allowedHosts
            self.idleTimeout = idleTimeout
        }

        /// Whether `host` is reached from this machine only.
        public var isLoopback: Bool {
            ["127.0.0.1", "::1", "localhost"].contains(host.lowercased()) || host.hasPrefix("127.")
        }

        /// The names a request's `Host` header may give: `host` and the names given, and the
        /// loopback names when serving on loopback.
        var hostNames: Set<String> {
            var names = Set(([host] + allowedHosts).map { HostCheckMiddleware<BasicRequestContext>.name(ofAuthority: Self.bracketed($0)) })
            if isLoopback { names.formUnion(["localhost", "127.0.0.1", "[::1]"]) }
            return names
        }

        /// An IPv6 address as a `Host` header writes it: in brackets.
        static func bracketed(_ host: String) -> String {
            host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        }
    }

    public let configuration: Configuration
    let database: ComicDatabase
    let engine: SearchEngine
    let library: Library
    let imagesDirectory: URL
    let logger: Logger

    /// - Parameter logger: the access log at `info`; at `debug` also the query strings and the
    ///   library's steps, which name what was searched.
    public init(configuration: Configuration, database: ComicDatabase, imagesDirectory: URL, logger: Logger) {
        self.configuration = configuration
        self.database = database
        var steps = logger
        steps.logLevel = logger.logLevel <= .debug ? .info : .notice
        self.engine = SearchEngine(database: database, sentenceModel: .located(), logger: steps)
        self.library = Library(database: database, logger: steps)
        self.imagesDirectory = imagesDirectory
        self.logger = logger
    }

    /// The routes and their middleware: what the tests run with HummingbirdTesting.
    public func makeApplication(onListening: @escaping @Sendable (URL) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = makeRouter()
        let host = configuration.host
        let (seconds, attoseconds) = configuration.idleTimeout.components
        let idleTimeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        return Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: idleTimeout)),
            configuration: ApplicationConfiguration(
                address: .hostname(host, port: configuration.port), serverName: nil, reuseAddress: false),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let url = URL(string: "http://\(Configuration.bracketed(host)):\(port)/")!
                await onListening(url)
            },
            logger: logger)
    }

    /// Serves until SIGINT or SIGTERM, then lets the requests under way finish and returns.
    public func run(onListening: @escaping @Sendable (URL) async -> Void) async throws {
        try await makeApplication(onListening: onListening).runService()  // SIGTERM and SIGINT: graceful shutdown
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessLogMiddleware())
        router.add(middleware: ContentSecurityMiddleware(contentSecurityPolicy: [
            .defaultSrc(.none), .frameAncestors(.none), .formAction(.none), .baseURI(.none),
        ]))
        // Everything served is read-only and public: any page may read it, with no credentials.
        // (Routes that change favourites will need a group without this.)
        router.add(middleware: CORSMiddleware(allowOrigin: .all, allowHeaders: [.accept], allowMethods: [.get, .options]))
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: HostCheckMiddleware(allowedNames: configuration.hostNames))

        get(router, "/healthz") { _, _ in try JSONResponse.make(["status": "ok"]) }
        get(router, "/api/search") { request, _ in try search(request.uri.queryParameters) }
        addRelevantRoute(to: router)
        get(router, "/api/comics/:comic") { request, context in
            let reference = try ComicReference(parsing: try context.parameters.require("comic"))
            let explains = try flag(request.uri.queryParameters, "explain")
            let page = try library.show(reference)
            return try JSONResponse.make(ComicDocument(page: page, withExplanation: explains), for: request, as: reference)
        }
        get(router, "/api/comics/:comic/related") { request, context in
            let reference = try ComicReference(parsing: try context.parameters.require("comic"))
            return try JSONResponse.make(RelatedDocument(try library.related(reference)), for: request, as: reference)
        }
        get(router, "/api/suggest") { request, _ in
            let typed = request.uri.queryParameters.get("q") ?? ""
            return try JSONResponse.make(SuggestionsDocument(query: typed, suggestions: try library.suggestions(for: typed)))
        }
        get(router, "/api/stats") { _, _ in
            var stats = try StatsDocument(reading: database, imagesDirectory: imagesDirectory)
            // The file's name only: no path of the machine leaves the server.
            stats.database = URL(fileURLWithPath: stats.database).lastPathComponent
            return try JSONResponse.make(stats)
        }
        return router
    }

    /// Registers a GET route, and a 405 with `Allow: GET` for the other methods on its path.
    private func get(
        _ router: Router<BasicRequestContext>, _ path: RouterPath,
        use handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response
    ) {
        router.get(path, use: handler)
        for method in [HTTPRequest.Method.post, .put, .delete, .patch] {
            router.on(path, method: method) { request, _ -> Response in
                throw APIError(
                    .methodNotAllowed, code: "method-not-allowed",
                    message: "\(request.method.rawValue) is not allowed here: only GET", headers: [.allow: "GET"])
            }
        }
    }

    /// The page sizes `limit` takes, as `search --limit`.
    static let limits = 1...1000

    private func search(_ parameters: Parameters) throws -> Response {
        guard let query = parameters.get("q"), !query.isEmpty else {
            throw APIError.badRequest("the query parameter q is missing", code: "missing-query")
        }
        let page = try number(parameters, "page", default: 1, in: 1...Int.max, says: "1 or more")
        let limit = try number(parameters, "limit", default: 10, in: Self.limits, says: "between 1 and 1000")
        let exact = try flag(parameters, "exact")
        let results = try engine.search(query, limit: limit, page: page, correctingSpelling: !exact)
        return try JSONResponse.make(SearchResultsDocument(results))
    }

    func number(_ parameters: Parameters, _ name: String, default: Int, in range: ClosedRange<Int>, says: String) throws -> Int {
        guard let text = parameters.get(name) else { return `default` }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest("\(name) must be \(says), not \(quoted(text))", code: "bad-parameter")
        }
        return value
    }

    private func flag(_ parameters: Parameters, _ name: String) throws -> Bool {
        switch parameters.get(name) {
        case nil, "0", "false": false
        case "", "1", "true": true
        case let text?:
            throw APIError.badRequest("\(name) must be 1, true, 0 or false, not \(quoted(text))", code: "bad-parameter")
        }
    }
}
