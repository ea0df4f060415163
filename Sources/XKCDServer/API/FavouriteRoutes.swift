import Foundation
import Hummingbird
import XKCDKit

/// `GET /api/favourites`, `PUT /api/favourites/{n}` and `DELETE /api/favourites/{n}`: the
/// favourites of the index's owner. Never readable by another site (``PublicCORSMiddleware``
/// leaves these routes out), and changed only by a same-origin, JSON-typed request, so that
/// another site's page or form cannot change them (CSRF).
struct FavouriteRoutes {
    let served: ServedIndex
    let deadline: Duration
    /// `--read-only`: favourites may not be changed.
    let isReadOnly: Bool

    var collection: RouteCollection<BasicRequestContext> {
        let routes = APIRoutes(deadline: deadline)
        routes.get("/api/favourites", use: listFavourites)
        routes.on("/api/favourites/:comic", [.put: putFavourite, .delete: deleteFavourite])
        return routes.collection
    }

    /// The largest body a `PUT` may send: a list of tags is a few hundred bytes.
    static let maximumBodyBytes = 64 * 1024

    /// What `fav list --json` prints (``FavouriteDocument``); `?tag=` as `fav list --tag`.
    @Sendable func listFavourites(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let list = try FavouriteListRequest(tag: request.uri.queryParameters.get("tag"))
        let entries = try list.run(in: served.generation.index)
        return try JSONResponse.make(entries.map(FavouriteDocument.init), cacheControl: "no-store")
    }

    /// Makes comic N a favourite with exactly the body's tags, `{"tags": ["sql", "classic"]}`;
    /// answers the favourite as `GET /api/favourites` lists it.
    @Sendable func putFavourite(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try checkChangeAllowed(request)
        guard Self.isJSON(request.headers[.contentType]) else {
            throw APIError(
                .forbidden, code: "not-json", message: "the body must be sent as Content-Type: application/json")
        }
        let comic = try comicNumber(context, naming: "a favourite")
        let body = try await request.body.collect(upTo: Self.maximumBodyBytes)
        guard let tags = (try? JSONDecoder().decode(TagsBody.self, from: Data(body.readableBytesView)))?.tags else {
            throw APIError.badRequest(#"the body must be JSON such as {"tags": ["sql", "classic"]}"#, code: "bad-body")
        }
        let change = try FavouriteChange(.set, comic: .number(comic), tags: tags)
        guard let entry = try change.run(in: served.generation.index).entry else {
            throw LibraryError.notAFavourite(comic)
        }
        return try JSONResponse.make(FavouriteDocument(entry), cacheControl: "no-store")
    }

    /// Removes comic N from the favourites: 204, or 404 when it is not one.
    @Sendable func deleteFavourite(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try checkChangeAllowed(request)
        let change = try FavouriteChange(.remove, comic: .number(try comicNumber(context, naming: "a favourite")))
        _ = try change.run(in: served.generation.index)
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// 403 under `--read-only`, and for a request another site's page sent.
    private func checkChangeAllowed(_ request: Request) throws {
        if isReadOnly {
            throw APIError(
                .forbidden, code: "read-only", message: "this server is read-only: favourites cannot be changed")
        }
        guard Self.isSameOrigin(request) else {
            throw APIError(
                .forbidden, code: "cross-origin", message: "favourites can only be changed by a page of this server")
        }
    }

    /// Whether a browser would say the request comes from a page of this server.
    ///
    /// `Sec-Fetch-Site`, when sent, must be `same-origin` (a page of this server) or `none` (typed
    /// by the person). `Origin`, when sent, must name the `Host` the request was sent to (the
    /// scheme aside: behind a TLS proxy the page is https, the request reaching us http). A
    /// request with neither header is from curl or a script, not a browser: browsers send
    /// `Origin` with every cross-origin request and with every same-origin PUT and DELETE, so
    /// no other site's page can send one without it.
    static func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[secFetchSite], !["same-origin", "none"].contains(site.lowercased()) {
            return false
        }
        guard let origin = request.headers[.origin]?.lowercased() else { return true }
        // `null` (a sandboxed page, a file) and anything but http(s)://authority is refused.
        guard let authority = request.head.authority?.lowercased(), let scheme = origin.firstRange(of: "://"),
            ["http", "https"].contains(origin[..<scheme.lowerBound])
        else { return false }
        return origin[scheme.upperBound...] == authority
    }

    static let secFetchSite: HTTPFields.Element.Name = .init("Sec-Fetch-Site")!

    /// `application/json`, with or without parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            == "application/json"
    }
}

/// The body of `PUT /api/favourites/{n}`, as openapi.json's Tags says: `tags` required and a
/// list (`{}` and `{"tags": null}` are refused), and nothing else (a misspelt key such as
/// `"tag"` is refused rather than read as no tags).
struct TagsBody: Decodable {
    var tags: [String]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let other = container.allKeys.first(where: { $0.stringValue != "tags" }) {
            throw DecodingError.dataCorruptedError(
                forKey: other, in: container, debugDescription: "only tags may be sent")
        }
        tags = try container.decode([String].self, forKey: Key(stringValue: "tags"))
    }
}
