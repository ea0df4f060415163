import Foundation
import Hummingbird
import XKCDKit

/// An answer other than 200, as JSON: `{"error": {"code": "...", "message": "..."}}`.
///
/// The message is written here for a client of the API: never a stack trace, a SQLite message,
/// a path of the machine or a control character.
struct APIError: Error, HTTPResponseError {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    /// Extra headers: `Allow` for a 405.
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = sanitized(message)
        self.headers = headers
    }

    private struct Document: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try JSONResponse.make(Document(error: .init(code: code, message: message)), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    static func notFound(_ message: String) -> APIError { APIError(.notFound, code: "not-found", message: message) }
    static func badRequest(_ message: String, code: String = "bad-request") -> APIError {
        APIError(.badRequest, code: code, message: message)
    }

    /// What the library's error means to a client of the API: the one table from an error's
    /// kind to a status, used by the API and the page alike. The code is the error's own
    /// (``ErrorClass``); the words are the library's, except where those advise a person at a
    /// terminal or could name a file of the machine. Nil for an error the library does not know.
    static func from(_ error: any Error) -> APIError? {
        if let error = error as? APIError { return error }
        let errorClass = ErrorClass(of: error)
        let words = String(describing: error)
        switch errorClass.kind {
        case .invalidInput:
            if ["passage-too-large", "image-too-large"].contains(errorClass.code) {
                return APIError(.contentTooLarge, code: errorClass.code, message: words)
            }
            if case LibraryError.invalidTag(let tag, let reason) = error {
                return .badRequest("the tag \(quoted(tag)) cannot be used: \(reason)", code: errorClass.code)
            }
            return .badRequest(words, code: errorClass.code)
        case .notFound:
            switch error as? LibraryError {
            case .skipped404: return .notFound("#404 does not exist: xkcd skipped it on purpose")
            case .emptyIndex: return .notFound("the index holds no comics yet")
            default: return .notFound(words)
            }
        case .readOnly:
            // The file, its directory or its disk cannot be written: `--read-only` in effect.
            return APIError(
                .forbidden, code: errorClass.code, message: "the index cannot be written: favourites cannot be changed")
        case .busy:
            return APIError(
                .serviceUnavailable, code: errorClass.code, message: "the index is busy; try again",
                headers: [.retryAfter: "1"])
        case .unavailable(let retryAfter):
            // The store's words name the file: a client is told only that there is no index to read.
            let seconds = retryAfter.map { String($0.components.seconds) } ?? "60"
            return APIError(
                .serviceUnavailable, code: errorClass.code, message: "the index cannot be read now; try again later",
                headers: [.retryAfter: seconds])
        case .internal:
            return nil
        }
    }
}

/// JSON answers in the one convention of ``JSONDocument``, the `--json` of the command line.
enum JSONResponse {
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, cacheControl: String? = nil) throws
        -> Response
    {
        var response = make(data: try JSONDocument.data(value), status: status)
        if let cacheControl { response.headers[.cacheControl] = cacheControl }
        return response
    }

    private static func make(data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// ``make(_:status:)`` with `Cache-Control` and an `ETag` (a hash of the body), or a bodiless
    /// 304 when the request's `If-None-Match` names that tag: a comic changes only when an index
    /// run fetches its explanation again, so a client asks again after an hour and mostly gets
    /// 304. `random` is never kept; `latest` for five minutes. An answer that `carriesFavourites`
    /// (a comic's document says whether it is one) is kept by the browser alone and asked again
    /// each time (`private, no-cache`), mostly for a 304: a favourite added shows at once.
    static func make(
        _ value: some Encodable, for request: Request, as reference: ComicReference, carriesFavourites: Bool = false
    ) throws -> Response {
        let maxAge: Int? =
            switch reference {
            case .number: 3600
            case .latest: 300
            case .random: nil
            }
        let data = try JSONDocument.data(value)
        var response = make(data: data)
        guard let maxAge else {
            response.headers[.cacheControl] = "no-store"
            return response
        }
        return EntityTag.answer(
            response, for: request, body: data,
            cacheControl: carriesFavourites ? "private, no-cache" : "public, max-age=\(maxAge)")
    }
}

/// `Cache-Control` and `ETag` for an answer that changes only with its bytes (a comic, an
/// image), and the bodiless 304 when the request's `If-None-Match` names the tag.
enum EntityTag {
    static func answer(_ response: Response, for request: Request, body: Data, cacheControl: String) -> Response {
        var response = response
        let tag = "\"\(String(FNV1a.digest(of: body), radix: 16))\""
        response.headers[.cacheControl] = cacheControl
        response.headers[.eTag] = tag
        let named = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }
        if named.contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag }) {
            return Response(status: .notModified, headers: response.headers)
        }
        return response
    }
}
