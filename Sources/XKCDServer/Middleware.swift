import Foundation
import Hummingbird
import Logging
import XKCDKit

/// Answers every error as JSON (``APIError``): the router's own 404, the library's errors as
/// the API words them, and anything else as a 500 whose details go to the log only.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError: APIError
            if let known = APIError.from(error) {
                apiError = known
            } else if let http = error as? HTTPError, http.status == .notFound {
                apiError = .notFound("no such route")
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

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
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
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        context.logger.info(
            "\(request.method.rawValue) \(sanitized(request.uri.path)) \(response.status.code) \(String(format: "%.1f", milliseconds)) ms")
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

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let isPage = !(path.hasPrefix("/api/") || path.hasPrefix("/images/") || path == "/healthz")
        return try await (isPage ? pages : api).handle(request, context: context, next: next)
    }
}
