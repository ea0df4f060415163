import Hummingbird
import XKCDKit

/// One resource's routes, gathered in a Hummingbird `RouteCollection`: every route answers within
/// the request deadline, and every other method on its path is a 405 naming those it takes.
///
/// ```swift
/// let routes = APIRoutes(deadline: .seconds(10))
/// routes.get("/api/stats") { request, context in … }
/// router.addRoutes(routes.collection)
/// ```
struct APIRoutes {
    typealias Handler = @Sendable (Request, BasicRequestContext) async throws -> Response

    /// The methods a path is registered for: those it takes, and a 405 for the others. QUERY
    /// (the safe method with a body, an IETF draft) is one a client may well try on a search.
    static let methods: [HTTPRequest.Method] = [
        .get, .post, .put, .delete, .patch, .trace, HTTPRequest.Method("QUERY")!,
    ]

    let collection = RouteCollection(context: BasicRequestContext.self)
    /// A request not answered by then is answered 503 `deadline`.
    let deadline: Duration

    /// Registers a GET route, and a 405 with `Allow: GET` for the other methods on its path.
    func get(_ path: RouterPath, use handler: @escaping Handler) {
        on(path, [.get: handler])
    }

    /// Registers the handlers of a path, and a 405 naming them in `Allow` for the other methods.
    func on(_ path: RouterPath, _ handlers: [HTTPRequest.Method: Handler]) {
        let allowed = Self.methods.filter { handlers[$0] != nil }.map(\.rawValue).joined(separator: ", ")
        for method in Self.methods {
            if let handler = handlers[method] {
                collection.on(path, method: method) { [deadline] request, context in
                    try await answer(within: deadline) { try await handler(request, context) }
                }
            } else {
                collection.on(path, method: method) { request, _ -> Response in
                    throw APIError(
                        .methodNotAllowed, code: "method-not-allowed",
                        message: "\(request.method.rawValue) is not allowed here: only \(allowed)",
                        headers: [.allow: allowed])
                }
            }
        }
    }
}

/// A URL's query as the requests of XKCDKit read their parameters.
struct QueryParameters: RequestParameters {
    let parameters: Parameters

    init(_ request: Request) {
        parameters = request.uri.queryParameters
    }

    func value(named name: String) -> String? {
        parameters.get(name)
    }
}

/// The route's `{comic}` as a number: `latest` and `random` name no one comic for long enough to
/// change its favourite or keep its image.
///
/// - Parameter what: what the number names, for the error: "a favourite", "an image".
func comicNumber(_ context: BasicRequestContext, naming what: String) throws -> Comic.ID {
    let text = try context.parameters.require("comic")
    guard case .number(let n) = try ComicReference(parsing: text) else {
        throw APIError.badRequest("\(what) is named by its comic's number, not \(quoted(text))", code: "bad-comic")
    }
    return n
}
