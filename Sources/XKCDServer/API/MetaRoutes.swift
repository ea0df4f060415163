import Hummingbird
import NIOCore
import XKCDKit

/// `GET /healthz`, `GET /api/stats` and `GET /api/openapi.json`: about the server and its index.
struct MetaRoutes {
    let served: ServedIndex
    let deadline: Duration

    var collection: RouteCollection<BasicRequestContext> {
        let routes = APIRoutes(deadline: deadline)
        routes.get("/healthz") { _, _ in try JSONResponse.make(["status": "ok"]) }
        routes.get("/api/stats", use: stats)
        routes.get("/api/openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: ResponseBody(byteBuffer: Self.openAPIDocument))
        }
        return routes.collection
    }

    /// What `stats --json` prints, with the index file's name alone: no path of the machine
    /// leaves the server.
    @Sendable func stats(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        try JSONResponse.make(try StatsRequest(namesFileOnly: true).run(in: served.generation.index))
    }

    /// `/api/openapi.json` as compiled in, copied into a buffer once rather than per request.
    static let openAPIDocument = ByteBuffer(bytes: PackageResources.openapi_json)
}
