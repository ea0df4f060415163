import CSTBImage
import FoundationEssentials

/// Pixels in 8-bit RGBA, four bytes a pixel, rows packed.
public struct DecodedImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    /// Pixels already decoded, `width * height * 4` bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
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
    /// The most frames an animated GIF may have: xkcd's longest animations have a few dozen; a
    /// file of thousands is refused before any is decoded.
    public static let maxFrames = 1_000

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
            if let frames = Self.gifFrameCount(UnsafeRawBufferPointer(raw), upTo: maxFrames + 1), frames > maxFrames {
                return .failure(.tooManyFrames(limit: maxFrames))
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

    /// The frames an animated GIF shows, for an image whose first frame holds nothing to find
    /// it by (a comic whose words come later): at most `limit`, evenly spaced from the first.
    /// One frame for any other image.
    ///
    /// - Parameters:
    ///   - data: the image file's bytes.
    ///   - limit: the most frames given.
    ///   - maxPixels: the most pixels a frame may have.
    /// - Returns: the frames, the first first.
    /// - Throws: what ``decode(_:maxPixels:)`` throws.
    public static func frames(_ data: Data, limit: Int = 8, maxPixels: Int = maxPixels) throws(ImageError)
        -> [DecodedImage]
    {
        let first = try decode(data, maxPixels: maxPixels)
        // Frames are kept decoded side by side: only a comic-sized animation has its others read.
        guard data.starts(with: Array("GIF8".utf8)), limit > 1, first.width * first.height * limit <= 16_000_000
        else { return [first] }
        return data.withUnsafeBytes { raw -> [DecodedImage] in
            let bytes = raw.bindMemory(to: UInt8.self).baseAddress!
            var width: Int32 = 0
            var height: Int32 = 0
            var kept: Int32 = 0
            let count = Self.gifFrameCount(UnsafeRawBufferPointer(raw), upTo: maxFrames) ?? 1
            let every = (count + limit - 1) / limit
            guard count > 1,
                let frames = xkcd_gif_frames(
                    bytes, Int32(raw.count), Int32(every), Int32(limit), Int32(count), &width, &height, &kept)
            else { return [first] }
            defer { xkcd_gif_frames_free(frames) }
            guard width == first.width, height == first.height else { return [first] }
            let stride = Int(width) * Int(height) * 4
            return (0..<Int(kept)).map { index in
                DecodedImage(
                    width: Int(width), height: Int(height),
                    pixels: Array(UnsafeBufferPointer(start: frames + index * stride, count: stride)))
            }
        }
    }

    /// How many frames a GIF holds, counted up to `limit` by walking its blocks (nothing is
    /// decoded); nil for bytes that are no GIF.
    static func gifFrameCount(_ bytes: UnsafeRawBufferPointer, upTo limit: Int) -> Int? {
        guard bytes.count >= 13, bytes.prefix(4).elementsEqual(Array("GIF8".utf8)) else { return nil }
        // A colour table's size is in a flags byte: present when bit 7 is set, 3 x 2^(n+1) bytes.
        func colourTable(_ flags: UInt8) -> Int { flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0 }
        var offset = 13 + colourTable(bytes[10])
        var frames = 0
        // Skips sub-blocks (a length byte, then that many bytes) up to the empty one.
        func skipSubBlocks() {
            while offset < bytes.count, bytes[offset] != 0 { offset += 1 + Int(bytes[offset]) }
            offset += 1
        }
        while offset < bytes.count, frames < limit {
            switch bytes[offset] {
            case 0x21:  // an extension: its label, then sub-blocks
                offset += 2
                skipSubBlocks()
            case 0x2C:  // a frame: its descriptor, colour table, LZW code size, then sub-blocks
                guard offset + 10 <= bytes.count else { return frames }
                offset += 10 + colourTable(bytes[offset + 9]) + 1
                skipSubBlocks()
                frames += 1
            default:  // the trailer, or damage: stb_image says which
                return frames
            }
        }
        return frames
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
