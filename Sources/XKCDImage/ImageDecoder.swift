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
public enum ImageDecoder: Sendable {
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
                // stb_image reads no size of an image whose pixels would pass its 2^30-byte
                // buffers; the header still says it.
                // In floating point: two 32-bit sizes can multiply past Int.max.
                if let (width, height) = Self.headerSize(UnsafeRawBufferPointer(raw)),
                    Double(width) * Double(height) > Double(maxPixels)
                {
                    return .failure(.tooLarge(width: width, height: height, limit: maxPixels))
                }
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
            return .success(
                DecodedImage(
                    width: Int(width), height: Int(height),
                    pixels: Array(UnsafeBufferPointer(start: pixels, count: count))))
        }
        return try result.get()
    }

    /// The width and height a PNG's IHDR chunk, a GIF's screen descriptor or a JPEG's frame
    /// header (its SOF segment) states.
    static func headerSize(_ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        func bigEndian(_ offset: Int, _ length: Int = 4) -> Int {
            (offset..<offset + length).reduce(0) { $0 << 8 | Int(bytes[$1]) }
        }
        func littleEndian16(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 {
            // Segments from the start: marker, length, then for a frame precision, height, width.
            var offset = 2
            while offset + 9 <= bytes.count, bytes[offset] == 0xFF {
                let marker = bytes[offset + 1]
                if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                    return (bigEndian(offset + 7, 2), bigEndian(offset + 5, 2))
                }
                offset += 2 + bigEndian(offset + 2, 2)
            }
            return nil
        }
        if bytes.count >= 24, bytes.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            bytes[12..<16].elementsEqual(Array("IHDR".utf8))
        {
            return (bigEndian(16), bigEndian(20))
        }
        if bytes.count >= 10, bytes.prefix(4).elementsEqual(Array("GIF8".utf8)) {
            return (littleEndian16(6), littleEndian16(8))
        }
        return nil
    }
}
