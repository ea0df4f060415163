import CSTBImage
import Foundation

/// Pixels in 8-bit RGBA, four bytes a pixel, rows packed.
public struct DecodedImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]
}

/// Decodes PNG, JPEG and GIF (the first frame of an animation) with stb_image.
///
/// ```swift
/// let image = try ImageDecoder.decode(try Data(contentsOf: file))
/// ```
public enum ImageDecoder {
    /// 40 million pixels (160 MB decoded). The largest xkcd image is about 4 million
    /// (#1133 is 740×3214 = 2.4 million); the limit is read from the header, before decoding.
    public static let maxPixels = 40_000_000

    /// - Throws: ``ImageError`` for bytes that are no image, a damaged one, or one above `maxPixels`.
    public static func decode(_ data: Data, maxPixels: Int = maxPixels) throws(ImageError) -> DecodedImage {
        guard !data.isEmpty, data.count < Int(Int32.max) else { throw .unknownFormat }
        let result: Result<DecodedImage, ImageError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self).baseAddress!
            var width: Int32 = 0
            var height: Int32 = 0
            guard xkcd_image_info(bytes, Int32(raw.count), &width, &height) == 1 else {
                return .failure(.unknownFormat)
            }
            guard Int(width) * Int(height) <= maxPixels else {
                return .failure(.tooLarge(width: Int(width), height: Int(height), limit: maxPixels))
            }
            guard let pixels = xkcd_image_decode_rgba(bytes, Int32(raw.count), &width, &height) else {
                return .failure(.damaged(reason: String(cString: xkcd_image_failure_reason())))
            }
            defer { xkcd_image_free(pixels) }
            let count = Int(width) * Int(height) * 4
            return .success(DecodedImage(
                width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: pixels, count: count))))
        }
        return try result.get()
    }
}
