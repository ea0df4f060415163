import FoundationEssentials
import Glibc
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import XKCDFiles
import XKCDKit

/// The HTTP JSON API over the index (`xkcd-search serve`): the same documents as the command
/// line's `--json` (``JSONDocument``), with JSON errors (``APIError``).
///
/// ```swift
/// let server = try APIServer(configuration: .init(), services: services, logger: logger)
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
        /// `POST /api/identify` not answered by then is 503 `deadline`: reading an image's words
        /// takes Tesseract a second or two, more when several wait for it.
        public var identifyDeadline: Duration
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
            identifyDeadline: Duration = .seconds(30),
            imageBaseURL: URL = URL(string: "https://imgs.xkcd.com")!, imageTimeout: Duration = .seconds(5),
            now: @escaping @Sendable () -> Date = Date.init
        ) {
            self.host = host
            self.port = port
            self.isReadOnly = isReadOnly
            self.allowedHosts = allowedHosts
            self.idleTimeout = idleTimeout
            self.requestDeadline = requestDeadline
            self.identifyDeadline = identifyDeadline
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
    let images: ImageRoutes
    let logger: Logger

    /// Opens the index the services name, to serve it.
    ///
    /// - Parameters:
    ///   - configuration: where to listen and what to allow.
    ///   - services: the index's path, the image cache and the sentence model.
    ///   - access: how the index is opened: ``IndexAccess/serving`` (readers side by side and a
    ///     writer for the favourites), or ``IndexAccess/reading`` for a file not to be written.
    ///   - followsPublishedIndex: a file published at the index's path (renamed over it) is
    ///     served from the next request on (``ServedIndex``).
    ///   - logger: the access log at `info`; at `debug` also the query strings and the library's
    ///     steps, which name what was searched.
    /// - Throws: what opening the index throws (``Services/open(_:remembersShownComic:logger:)``).
    public init(
        configuration: Configuration, services: Services, access: IndexAccess = .serving,
        followsPublishedIndex: Bool = true, logger: Logger
    ) throws {
        self.configuration = configuration
        var steps = logger
        steps.logLevel = logger.logLevel <= .debug ? .info : .notice
        let open: @Sendable () throws -> OpenIndex = { [steps] in try services.open(access, logger: steps) }
        let index = try open()
        self.served = ServedIndex(
            index: index, path: followsPublishedIndex ? index.path : nil, open: open, logger: logger)
        self.images = ImageRoutes(
            served: served, deadline: configuration.requestDeadline, directory: services.paths.imagesDirectory,
            baseURL: configuration.imageBaseURL, timeout: configuration.imageTimeout, now: configuration.now,
            logger: steps)
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
            responder: HeadAsGetResponder(wrapped: router.buildResponder()),
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

    /// The most a `POST /api/relevant` body may hold: the passage's limit, and room for JSON's
    /// escapes of it.
    public static let maximumRelevantBody = SearchRoutes.maximumRelevantBody

    /// The middleware, in the order they see a request, then one route collection per resource.
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
        router.add(middleware: ControlCharacterPathMiddleware())
        router.add(middleware: HostCheckMiddleware(allowedNames: configuration.hostNames))
        router.add(middleware: ServedIndexMiddleware(served: served))
        router.add(middleware: IndexBuildingMiddleware(served: served))

        let deadline = configuration.requestDeadline
        router.addRoutes(MetaRoutes(served: served, deadline: deadline).collection)
        router.addRoutes(SearchRoutes(served: served, deadline: deadline).collection)
        router.addRoutes(ComicRoutes(served: served, deadline: deadline).collection)
        router.addRoutes(
            FavouriteRoutes(served: served, deadline: deadline, isReadOnly: configuration.isReadOnly).collection)
        router.addRoutes(images.collection)
        router.addRoutes(IdentifyRoutes(served: served, deadline: configuration.identifyDeadline).collection)
        WebPages(served: served, isReadOnly: configuration.isReadOnly).add(to: router)
        return router
    }
}
