import FoundationEssentials
import Hummingbird
import NIOCore
import XKCDKit

/// `GET /api/search`, `POST /api/relevant` and `GET /api/suggest`: the same documents as
/// `search --json` and `relevant --json`, and the search box's completions.
struct SearchRoutes {
    let served: ServedIndex
    let deadline: Duration

    var collection: RouteCollection<BasicRequestContext> {
        let routes = APIRoutes(deadline: deadline)
        routes.get("/api/search", use: search)
        routes.on("/api/relevant", [.post: relevant])
        routes.get("/api/suggest", use: suggest)
        return routes.collection
    }

    /// The most a `/api/relevant` body may hold: the passage's limit, and room for JSON's
    /// escapes of it.
    static let maximumRelevantBody = 6 * RelevantRequest.maximumLength

    @Sendable func search(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let search = try SearchRequest(reading: QueryParameters(request))
        if search.readsFavourites, !FavouriteRoutes.isSameOrigin(request) {
            throw APIError(
                .forbidden, code: "cross-origin", message: "favourites can only be read by a page of this server")
        }
        return try JSONResponse.make(SearchResultsDocument(try search.run(in: served.generation.index)))
    }

    /// `{"text": "..."}`: a passage over ``RelevantRequest/maximumLength`` is 413, as a client
    /// that sent it would rather know than have it cut.
    @Sendable func relevant(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumRelevantBody)
        } catch is NIOTooManyBytesError {
            throw RequestError.tooLong(
                .text, length: Self.maximumRelevantBody, limit: RelevantRequest.maximumLength)
        }
        struct Body: Decodable { var text: String }
        guard let text = try? JSONDecoder().decode(Body.self, from: Data(body.readableBytesView)).text else {
            throw APIError.badRequest("the body must be JSON: {\"text\": \"...\"}", code: "bad-body")
        }
        let relevant = try RelevantRequest(passage: text, reading: QueryParameters(request))
        return try JSONResponse.make(RelevantDocument(try relevant.run(in: served.generation.index)))
    }

    @Sendable func suggest(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try JSONResponse.make(SuggestRequest(reading: QueryParameters(request)).run(in: served.generation.index))
    }
}
