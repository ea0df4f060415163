import Foundation
import Hummingbird
import NIOCore
import XKCDKit

/// `POST /api/relevant` with `{"text": "..."}`: the comics that fit a passage, as
/// `relevant --json` prints them (``RelevantDocument``). A passage over
/// ``SearchEngine/maximumPassageLength`` is 413: a client that sent it would rather know than
/// have it cut.
extension APIServer {
    /// The most a body may hold: the passage's limit, and room for JSON's escapes of it.
    public static let maximumRelevantBody = 6 * SearchEngine.maximumPassageLength

    func addRelevantRoute(to router: Router<BasicRequestContext>) {
        // Through `on`, as every API route: the deadline, and 405 for the other methods.
        on(router, "/api/relevant", [.post: { request, _ in try await relevant(request) }])
    }

    private func relevant(_ request: Request) async throws -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maximumRelevantBody)
        } catch is NIOTooManyBytesError {
            throw Self.passageTooLarge
        }
        struct Body: Decodable { var text: String }
        guard let text = try? JSONDecoder().decode(Body.self, from: Data(body.readableBytesView)).text else {
            throw APIError.badRequest("the body must be JSON: {\"text\": \"...\"}", code: "bad-body")
        }
        guard text.utf8.count <= SearchEngine.maximumPassageLength else { throw Self.passageTooLarge }
        let limit = try number(
            request.uri.queryParameters, "limit", default: 10, in: Self.limits, says: "between 1 and 1000")
        return try JSONResponse.make(RelevantDocument(try engine.relevant(to: text, limit: limit)))
    }

    private static var passageTooLarge: APIError {
        APIError(
            .contentTooLarge, code: "passage-too-large",
            message: "the passage is over \(SearchEngine.maximumPassageLength) bytes: send at most that much")
    }
}
