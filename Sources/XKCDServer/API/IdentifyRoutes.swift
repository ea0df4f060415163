import Foundation
import Hummingbird
import NIOCore
import XKCDKit

/// `POST /api/identify` with an image as the body: the comics it may show, as `identify --json`
/// prints them. It changes nothing, so any page may send it; an image over
/// ``IdentifyRequest/maximumBytes`` is 413 and a body that is no image 415 or 400. Reading an
/// image takes Tesseract a second or two: the route has a deadline of its own.
struct IdentifyRoutes {
    let served: ServedIndex
    let deadline: Duration

    var collection: RouteCollection<BasicRequestContext> {
        let routes = APIRoutes(deadline: deadline)
        routes.on("/api/identify", [.post: identify])
        return routes.collection
    }

    @Sendable func identify(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let type =
            request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        guard type.hasPrefix("image/") || type == "application/octet-stream" else {
            throw APIError(
                .unsupportedMediaType, code: "not-an-image",
                message: "send the image itself as the body, with Content-Type image/png (or another image type)")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: IdentifyRequest.maximumBytes)
        } catch is NIOTooManyBytesError {
            throw RequestError.tooLong(
                .image, length: IdentifyRequest.maximumBytes + 1, limit: IdentifyRequest.maximumBytes)
        }
        let identify = try IdentifyRequest(image: Data(body.readableBytesView), reading: QueryParameters(request))
        let index = served.generation.index
        // Off the server's threads: Tesseract holds its thread for the whole read.
        let found = try await offTheTaskPool { try identify.run(in: index) }
        return try JSONResponse.make(IdentifyDocument(found))
    }
}
