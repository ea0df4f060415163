import Hummingbird
import XKCDKit

/// `GET /api/comics/{comic}` and `GET /api/comics/{comic}/related`: what `show --json` and
/// `related --json` print, with `ETag` and `Cache-Control` (``JSONResponse/make(_:for:as:)``).
struct ComicRoutes {
    let served: ServedIndex
    let deadline: Duration

    var collection: RouteCollection<BasicRequestContext> {
        let routes = APIRoutes(deadline: deadline)
        routes.get("/api/comics/:comic", use: comic)
        routes.get("/api/comics/:comic/related", use: related)
        return routes.collection
    }

    @Sendable func comic(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let comic = try ComicRequest(comic: try context.parameters.require("comic"), reading: QueryParameters(request))
        return try JSONResponse.make(
            try comic.document(in: served.generation.index), for: request, as: comic.comic ?? .latest,
            carriesFavourites: true)
    }

    @Sendable func related(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let related = try RelatedRequest(comic: try context.parameters.require("comic"))
        return try JSONResponse.make(
            RelatedDocument(try related.run(in: served.generation.index)), for: request, as: related.comic ?? .latest)
    }
}
