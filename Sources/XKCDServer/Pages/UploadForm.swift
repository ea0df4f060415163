import FoundationEssentials
import MultipartKit
import NIOCore

/// The `multipart/form-data` body of the identify page's form, read with Vapor's MultipartKit.
struct UploadForm: Decodable {
    /// The file's bytes.
    var image: Data

    /// The bytes of the form's `image` file, or nil when the body is no such form or holds no
    /// file (the form sent empty).
    static func image(in body: ByteBuffer, contentType: String?) -> Data? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = contentType.split(separator: ";").lazy
                .map({ $0.trimmingCharacters(in: .whitespaces) })
                .first(where: { $0.lowercased().hasPrefix("boundary=") })?
                .dropFirst("boundary=".count).trimmingCharacters(in: ["\""]),
            let form = try? FormDataDecoder().decode(UploadForm.self, from: body, boundary: boundary),
            !form.image.isEmpty
        else { return nil }
        return form.image
    }
}
