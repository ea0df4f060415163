import Foundation
import Hummingbird
import Logging
import Synchronization
import XKCDKit

/// Reads a `+` in the query string as a space, as browsers encode a form sent with GET and as
/// most HTTP clients encode a parameter (Python's `urlencode`, `requests`); a plus itself comes as
/// `%2B`. Hummingbird's `queryParameters` decodes `%XX` only, so the request goes on with each
/// `+` of its query written `%20`: every route that reads a parameter, now or later, reads what
/// the client meant (`?q=bobby+-tables` is `bobby -tables`, `?q=c%2B%2B` is `c++`).
struct FormEncodedQueryMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let target = request.head.path, let mark = target.firstIndex(of: "?"),
            target[mark...].contains("+")
        else { return try await next(request, context) }
        var head = request.head
        head.path =
            target[..<mark]
            + target[mark...].split(separator: "+", omittingEmptySubsequences: false)
            .joined(separator: "%20")
        return try await next(Request(head: head, body: request.body), context)
    }
}

/// Answers every error as JSON (``APIError``): the router's own 404, the library's errors as
/// the API words them, and anything else as a 500 whose details go to the log only.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch {
            let apiError: APIError
            if let known = APIError.from(error) {
                apiError = known
            } else if let http = error as? HTTPError, http.status == .notFound {
                apiError = .notFound("no such route")
            } else if let http = error as? any HTTPResponseError, http.status == .contentTooLarge {
                apiError = APIError(
                    .contentTooLarge, code: "too-large",
                    message: "the body is larger than \(FavouriteRoutes.maximumBodyBytes / 1024) KB")
            } else if let http = error as? any HTTPResponseError, http.status.code < 500 {
                apiError = APIError(http.status, code: "bad-request", message: http.status.reasonPhrase.lowercased())
            } else {
                // A store error's text may hold SQLite's message or a path: the log has it, the
                // client does not.
                context.logger.error("request failed: \(String(describing: error))")
                apiError = APIError(.internalServerError, code: "internal", message: "the index could not be read")
            }
            return try apiError.response(from: request, context: context)
        }
    }
}

/// Refuses a request whose `Host` names another server: a web page elsewhere must not reach a
/// server on loopback through DNS rebinding (its requests carry its own domain's name). The port
/// is not compared: the name is what a rebinding attack cannot fake.
struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Lowercased host names, IPv6 addresses in brackets.
    let allowedNames: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard let authority = request.head.authority, allowedNames.contains(Self.name(ofAuthority: authority)) else {
            throw APIError(.badRequest, code: "wrong-host", message: "the Host header does not name this server")
        }
        return try await next(request, context)
    }

    /// `example.org:8080` → `example.org`, `[::1]:8080` → `[::1]`, lowercased.
    static func name(ofAuthority authority: String) -> String {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("[") {
            return lowered.firstIndex(of: "]").map { String(lowered[...$0]) } ?? lowered
        }
        return String(lowered.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}

/// One line per request at `info`: method, path (never the query's text: what people search for
/// is theirs), status and duration. The query string is logged at `debug` only.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let milliseconds = (ContinuousClock.now - start).seconds * 1000
        context.logger.info(
            "\(request.method.rawValue) \(sanitized(request.uri.path)) \(response.status.code) \(String(format: "%.1f", milliseconds)) ms"
        )
        if let query = request.uri.query {
            context.logger.debug("query string: \(sanitized(query))")
        }
        return response
    }
}

/// Hummingbird's `ContentSecurityMiddleware` with the policy of the part of the site asked for:
/// the pages load their own script, style sheet and images; the API, `/healthz` and the images
/// themselves load nothing (`default-src 'none'`).
struct ContentSecurityByPath<Context: RequestContext>: RouterMiddleware {
    let api: ContentSecurityMiddleware<Context>
    let pages: ContentSecurityMiddleware<Context>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let path = request.uri.path
        let isPage = !(path.hasPrefix("/api/") || path.hasPrefix("/images/") || path == "/healthz")
        return try await (isPage ? pages : api).handle(request, context: context, next: next)
    }
}

/// Hummingbird's `CORSMiddleware` for the API's public answers and the images: searches, related
/// comics and images are public and read-only, so any page may read them
/// (`Access-Control-Allow-Origin: *`, no credentials). What tells of the owner's favourites is
/// readable by this server's pages only: the favourites, a comic's document (it says whether the
/// comic is a favourite, with its tags), `/api/stats` (how many), and the pages themselves. A
/// search that filters by favourites is refused to another site (``SearchRoutes``).
struct PublicCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    private let cors = CORSMiddleware<Context>(
        allowOrigin: .all, allowHeaders: [.accept], allowMethods: [.get, .options])

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard Self.isPublic(request.uri.path) else { return try await next(request, context) }
        return try await cors.handle(request, context: context, next: next)
    }

    /// Whether the route `path` reaches is one of the public ones, named one by one: a route
    /// added later is private until it is added here. Read by segments, as the router reads a
    /// path (`/api//stats/` is `/api/stats`).
    static func isPublic(_ path: String) -> Bool {
        let segments = (path.removingPercentEncoding ?? path).split(separator: "/")
        switch segments.count {
        case 1: return segments[0] == "healthz"
        case 2:
            return segments[0] == "images"
                || segments[0] == "api"
                    && ["search", "relevant", "suggest", "identify", "openapi.json"].contains(segments[1])
        case 4: return segments[0] == "api" && segments[1] == "comics" && segments[3] == "related"
        default: return false
        }
    }
}

/// Answers 503 `deadline` when `handler` has not answered within `deadline`, and cancels it: a
/// client is never held for ever by an image server that does not answer or a queue of
/// searches. The handler runs in a task of its own so that the deadline's answer does not wait
/// for work that cannot stop at once (a search inside SQLite ends on its own, unanswered).
///
/// Around each route's handler rather than a middleware: a middleware's `next` may not outlive
/// the call, and the deadline's answer must not wait for it.
func answer(within deadline: Duration, _ handler: @escaping @Sendable () async throws -> Response) async throws
    -> Response
{
    /// Whichever comes first, the handler's answer or the deadline, takes the continuation.
    final class Race: Sendable {
        let continuation = Mutex<CheckedContinuation<Response, any Error>?>(nil)
        let timer = Mutex<Task<Void, Never>?>(nil)
    }
    let race = Race()
    return try await withCheckedThrowingContinuation { continuation in
        race.continuation.withLock { $0 = continuation }
        let worker = Task {
            let result: Result<Response, any Error>
            do {
                result = .success(try await handler())
            } catch {
                result = .failure(error)
            }
            race.continuation.withLock { $0.take() }?.resume(with: result)
            race.timer.withLock { $0?.cancel() }
        }
        race.timer.withLock {
            $0 = Task {
                try? await Task.sleep(for: deadline)
                guard let continuation = race.continuation.withLock({ $0.take() }) else { return }
                worker.cancel()
                continuation.resume(
                    throwing: APIError(
                        .serviceUnavailable, code: "deadline",
                        message: "no answer within \(deadline.components.seconds) s; try again later"))
            }
        }
    }
}

/// Serves each request from the index current when it arrives, and picks up one published at
/// the index's path between requests (``ServedIndex``); 503 `index-unavailable` while a file
/// published there cannot be opened.
struct ServedIndexMiddleware<Context: RequestContext>: RouterMiddleware {
    let served: ServedIndex

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        try await served.lease { try await next(request, context) }
    }
}

/// Answers 503 `index-building` while the first index run fills an index that holds no comic
/// yet: an empty answer would read as "nothing found". Once a comic has been seen it is not
/// asked again (no index run deletes comics; a rebuild writes them over). `/healthz` answers
/// throughout: the server itself is well.
struct IndexBuildingMiddleware<Context: RequestContext>: RouterMiddleware {
    let served: ServedIndex
    private let hasComics = HasComics()

    private final class HasComics: Sendable {
        let seen = Atomic(false)
    }

    init(served: ServedIndex) {
        self.served = served
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if !hasComics.seen.load(ordering: .relaxed), request.uri.path != "/healthz" {
            let index = served.generation.index
            if try index.library.hasComics() {
                hasComics.seen.store(true, ordering: .relaxed)
            } else if index.isIndexRunUnderWay {
                throw APIError(
                    .serviceUnavailable, code: "index-building",
                    message: "the index is being built for the first time; try again in a few minutes",
                    headers: [.retryAfter: "60"])
            }
        }
        return try await next(request, context)
    }
}

/// Refuses a path that holds a control character once decoded (`/static/site.css%00.html`), 400
/// `bad-request`: no route or file has one, and a file name read as a C string ends at a NUL,
/// so the file served would not be the one the path's ending (and content type) names.
struct ControlCharacterPathMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // A path that does not decode as UTF-8 is refused too: a looser decoder further on
        // (the file middleware's) would still find its NUL.
        guard let path = request.uri.path.removingPercentEncoding else {
            throw APIError.badRequest("the path is not percent-encoded UTF-8")
        }
        if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw APIError.badRequest("the path holds a control character")
        }
        return try await next(request, context)
    }
}

/// Answers `HEAD` as the `GET` of the same address would be answered, without its body (RFC 9110
/// §9.3.2): the status and headers a client checks before fetching (a link checker, `curl -I`).
/// Around the router rather than one of its middleware: the router finds a route by method
/// before its middleware run.
struct HeadAsGetResponder<Wrapped: HTTPResponder>: HTTPResponder {
    let wrapped: Wrapped

    func respond(to request: Request, context: Wrapped.Context) async throws -> Response {
        guard request.method == .head else { return try await wrapped.respond(to: request, context: context) }
        var head = request.head
        head.method = .get
        var response = try await wrapped.respond(to: Request(head: head, body: request.body), context: context)
        // The length the GET's body has, set after the body goes (setting one sets the other).
        let length = response.body.contentLength
        response.body = ResponseBody()
        // A streamed body's length is not known before it is written: then none is said.
        response.headers[.contentLength] = length.map(String.init)
        return response
    }
}
