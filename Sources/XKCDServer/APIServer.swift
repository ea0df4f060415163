import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import XKCDKit
// The index handle the server is given, for Library, SearchEngine and the stats.
import XKCDStore

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
        /// A request not answered by then is answered 503 `deadline`: nothing holds a
        /// connection forever (an image server that never answers, a search stuck behind others).
        public var requestDeadline: Duration
        /// Where `/images/{n}` fetches an image the cache lacks (imgs.xkcd.com, `--image-url`).
        public var imageBaseURL: URL
        /// How long `/images/{n}` waits for the image server to send a byte, each try (it tries
        /// twice); the whole try may take 3 s more. Someone waits for the answer.
        public var imageTimeout: Duration
        /// What "now" is for images remembered as missing: a test moves it on.
        public var now: @Sendable () -> Date

        public init(
            host: String = "127.0.0.1", port: Int = 8080, isReadOnly: Bool = false, allowedHosts: [String] = [],
            idleTimeout: Duration = .seconds(60), requestDeadline: Duration = .seconds(10),
            imageBaseURL: URL = URL(string: "https://imgs.xkcd.com")!, imageTimeout: Duration = .seconds(5),
            now: @escaping @Sendable () -> Date = Date.init
        ) {
            self.host = host
            self.port = port
            self.isReadOnly = isReadOnly
            self.allowedHosts = allowedHosts
            self.idleTimeout = idleTimeout
            self.requestDeadline = requestDeadline
            self.imageBaseURL = imageBaseURL
            self.imageTimeout = imageTimeout
            self.now = now
        }

        /// Whether `host` is reached from this machine only.
        public var isLoopback: Bool {
            ["127.0.0.1", "::1", "localhost"].contains(host.lowercased()) || host.hasPrefix("127.")
        }

        /// The names a request's `Host` header may give: `host` and the names given, and the
        /// loopback names when serving on loopback.
        var hostNames: Set<String> {
            var names = Set(
                ([host] + allowedHosts).map {
                    HostCheckMiddleware<BasicRequestContext>.name(ofAuthority: Self.bracketed($0))
                })
            if isLoopback { names.formUnion(["localhost", "127.0.0.1", "[::1]"]) }
            return names
        }

        /// An IPv6 address as a `Host` header writes it: in brackets.
        static func bracketed(_ host: String) -> String {
            host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        }
    }

    public let configuration: Configuration
    /// The index, and the one published at its path after it (``ServedIndex``).
    let served: ServedIndex
    /// The engine's model, which `/api/stats` asks too: one model loaded once, not one a request.
    let sentenceModel: SentenceModel
    /// The index the request under way answers from, and the engine and library over it.
    var database: ComicDatabase { served.generation.database }
    var engine: SearchEngine { served.generation.engine }
    var library: Library { served.generation.library }
    let imagesDirectory: URL
    let images: ImageRoutes
    let logger: Logger

    /// - Parameters:
    ///   - sentenceModel: the model descriptions are searched with (by default where the
    ///     executables find it); a search goes on by words without it.
    ///   - reopening: opens the index at `database`'s path again: given, a file published there
    ///     (renamed over it) is served from the next request on (``ServedIndex``).
    ///   - logger: the access log at `info`; at `debug` also the query strings and the library's
    ///     steps, which name what was searched.
    public init(
        configuration: Configuration, database: ComicDatabase, imagesDirectory: URL,
        sentenceModel: SentenceModel = .located(), reopening: (@Sendable () throws -> ComicDatabase)? = nil,
        logger: Logger
    ) {
        self.configuration = configuration
        var steps = logger
        steps.logLevel = logger.logLevel <= .debug ? .info : .notice
        self.served = ServedIndex(
            database: database, path: reopening == nil ? nil : database.path,
            open: reopening ?? { database },
            makeGeneration: { [steps] database, file in
                ServedIndex.Generation(
                    database: database,
                    engine: SearchEngine(database: database, sentenceModel: sentenceModel, logger: steps),
                    library: Library(database: database, logger: steps), file: file)
            }, logger: logger)
        self.sentenceModel = sentenceModel
        self.imagesDirectory = imagesDirectory
        self.images = ImageRoutes(
            directory: imagesDirectory, baseURL: configuration.imageBaseURL, timeout: configuration.imageTimeout,
            now: configuration.now, logger: steps)
        self.logger = logger
    }

    /// The routes and their middleware: what the tests run with HummingbirdTesting.
    public func makeApplication(onListening: @escaping @Sendable (URL) async -> Void = { _ in })
        -> some ApplicationProtocol
    {
        let router = makeRouter()
        let host = configuration.host
        let (seconds, attoseconds) = configuration.idleTimeout.components
        let idleTimeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        return Application(
            router: router,
            server: HTTPServerBuilder { responder in
                LimitedHTTP1Channel(
                    http1: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)))
            },
            configuration: ApplicationConfiguration(
                // SO_REUSEADDR: a replica started again after a crash binds its port while the
                // old connections wait out TIME_WAIT. Linux still refuses a port another socket
                // listens on (``AddressInUse``).
                address: .hostname(host, port: configuration.port), serverName: nil, reuseAddress: true),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let url = URL(string: "http://\(Configuration.bracketed(host)):\(port)/")!
                await onListening(url)
            },
            logger: logger)
    }

    /// Serves until SIGINT or SIGTERM, then lets the requests under way finish and returns.
    public func run(onListening: @escaping @Sendable (URL) async -> Void) async throws {
        do {
            try await makeApplication(onListening: onListening).runService()  // SIGTERM and SIGINT: graceful shutdown
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw AddressInUse(host: configuration.host, port: configuration.port)
        }
    }

    /// Another program listens where the server was asked to: NIO's own words name a system call.
    public struct AddressInUse: Error, CustomStringConvertible {
        public let host: String
        public let port: Int
        public var description: String {
            "another program is listening on \(Configuration.bracketed(host)):\(port)"
        }
    }

    /// On every answer, the ones refused before routing (``RequestHeadLimitHandler``) too.
    static let contentSecurityPolicy: ContentSecurityPolicy = [
        .defaultSrc(.none), .frameAncestors(.none), .formAction(.none), .baseURI(.none),
    ]

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        // First, so that every middleware and route reads the query as the client meant it.
        router.add(middleware: FormEncodedQueryMiddleware())
        router.add(middleware: AccessLogMiddleware())
        router.add(
            middleware: ContentSecurityByPath(
                api: ContentSecurityMiddleware(contentSecurityPolicy: Self.contentSecurityPolicy),
                pages: ContentSecurityMiddleware(contentSecurityPolicy: WebPages.contentSecurityPolicy)))
        router.add(middleware: PublicCORSMiddleware())
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: HostCheckMiddleware(allowedNames: configuration.hostNames))
        router.add(middleware: ServedIndexMiddleware(served: served))
        router.add(middleware: IndexBuildingMiddleware(served: served))

        get(router, "/healthz") { _, _ in try JSONResponse.make(["status": "ok"]) }
        get(router, "/api/search") { request, _ in try search(request.uri.queryParameters) }
        addRelevantRoute(to: router)
        get(router, "/api/comics/:comic") { request, context in
            let reference = try ComicReference(parsing: try context.parameters.require("comic"))
            let explains = try flag(request.uri.queryParameters, "explain")
            let page = try library.show(reference)
            return try JSONResponse.make(
                ComicDocument(page: page, withExplanation: explains), for: request, as: reference)
        }
        get(router, "/api/comics/:comic/related") { request, context in
            let reference = try ComicReference(parsing: try context.parameters.require("comic"))
            return try JSONResponse.make(RelatedDocument(try library.related(reference)), for: request, as: reference)
        }
        get(router, "/api/suggest") { request, _ in
            let typed = request.uri.queryParameters.get("q") ?? ""
            return try JSONResponse.make(
                SuggestionsDocument(query: typed, suggestions: try library.suggestions(for: typed)))
        }
        get(router, "/api/stats") { _, _ in
            var stats = try StatsDocument(reading: database, imagesDirectory: imagesDirectory, model: sentenceModel)
            // The file's name only: no path of the machine leaves the server.
            stats.database = URL(fileURLWithPath: stats.database).lastPathComponent
            return try JSONResponse.make(stats)
        }
        get(router, "/api/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: Self.openAPIDocument))
        }
        get(router, "/api/favourites", use: listFavourites)
        on(router, "/api/favourites/:comic", [.put: putFavourite, .delete: deleteFavourite])
        get(router, "/images/:comic", use: image)
        WebPages(
            served: served, sentenceModel: sentenceModel, imagesDirectory: imagesDirectory,
            isReadOnly: configuration.isReadOnly
        )
        .add(to: router)
        return router
    }

    typealias Handler = @Sendable (Request, BasicRequestContext) async throws -> Response

    /// Registers a GET route, and a 405 with `Allow: GET` for the other methods on its path.
    private func get(_ router: Router<BasicRequestContext>, _ path: RouterPath, use handler: @escaping Handler) {
        on(router, path, [.get: handler])
    }

    /// Registers the handlers of a path, and a 405 naming them in `Allow` for the other methods.
    func on(
        _ router: Router<BasicRequestContext>, _ path: RouterPath, _ handlers: [HTTPRequest.Method: Handler]
    ) {
        let order: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .trace]
        let allowed = order.filter { handlers[$0] != nil }.map(\.rawValue).joined(separator: ", ")
        for method in order {
            if let handler = handlers[method] {
                let deadline = configuration.requestDeadline
                router.on(path, method: method) { request, context in
                    try await answer(within: deadline) { try await handler(request, context) }
                }
                continue
            }
            router.on(path, method: method) { request, _ -> Response in
                throw APIError(
                    .methodNotAllowed, code: "method-not-allowed",
                    message: "\(request.method.rawValue) is not allowed here: only \(allowed)",
                    headers: [.allow: allowed])
            }
        }
    }

    /// The route's `{comic}` as a number: `latest` and `random` name no one comic for long
    /// enough to change its favourite or keep its image.
    func comicNumber(_ context: BasicRequestContext, naming what: String) throws -> Comic.ID {
        let text = try context.parameters.require("comic")
        guard case .number(let n) = try ComicReference(parsing: text) else {
            throw APIError.badRequest("\(what) is named by its comic's number, not \(quoted(text))", code: "bad-comic")
        }
        return n
    }

    /// `/api/openapi.json` as compiled in, copied into a buffer once rather than per request.
    static let openAPIDocument = ByteBuffer(bytes: PackageResources.openapi_json)

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

    func number(_ parameters: Parameters, _ name: String, default: Int, in range: ClosedRange<Int>, says: String) throws
        -> Int
    {
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
