import FoundationEssentials
import Glibc

/// A 64-bit perceptual hash of a picture (the DCT hash, "pHash"): the signs of its 64 lowest
/// frequencies against their median, at 32 x 32 grey. A copy resized, recompressed or slightly
/// blurred keeps nearly all its bits; another picture differs in about half. It finds a comic
/// from its image when the image holds no words to read (`identify`).
///
/// ```swift
/// let hash = try PerceptualHash(of: try Data(contentsOf: file)).value
/// PerceptualHash.distance(hash, other)   // 0 ... 64 differing bits
/// ```
public struct PerceptualHash: Sendable, Hashable {
    /// The 64 bits.
    public var value: UInt64

    /// The side of the grey square the frequencies are taken from.
    static let side = 32

    /// Hashes an image file's bytes (PNG, JPEG, GIF's first frame).
    ///
    /// - Parameter data: the image file.
    /// - Throws: ``ImageError`` for bytes that are no image, or a damaged one.
    public init(of data: Data) throws(ImageError) {
        self.init(of: try ImageDecoder.decode(data))
    }

    /// Hashes decoded pixels, all of them or a region's.
    ///
    /// - Parameters:
    ///   - image: the pixels, RGBA.
    ///   - region: the part to hash; the whole image unless given.
    public init(of image: DecodedImage, in region: ImageRegion? = nil) {
        let grey = Self.shrunkGrey(
            image, in: region ?? ImageRegion(x: 0, y: 0, width: image.width, height: image.height))
        let frequencies = Self.lowFrequencies(grey)
        // The median of the 63 besides the mean brightness (the first), which says nothing of
        // the picture's shape.
        let median = frequencies.dropFirst().sorted()[31]
        var value: UInt64 = 0
        for (index, frequency) in frequencies.enumerated() where frequency > median {
            value |= 1 << UInt64(index)
        }
        self.value = value
    }

    /// The hashes that find a copy of `image` or of a part of it: the whole image's, then each
    /// region's (``ImageRegions``: the comic inside a screenshot, its panels), each hash once.
    ///
    /// - Parameter image: the pixels.
    /// - Returns: at least the whole image's hash.
    public static func hashes(of image: DecodedImage) -> [UInt64] {
        var hashes = [PerceptualHash(of: image).value]
        for region in ImageRegions.regions(of: image) {
            let hash = PerceptualHash(of: image, in: region).value
            if !hashes.contains(hash) { hashes.append(hash) }
        }
        return hashes
    }

    /// How many of the 64 bits differ.
    ///
    /// - Parameters:
    ///   - a: one hash.
    ///   - b: another.
    /// - Returns: 0 for the same picture, about 32 for unrelated ones.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int {
        (a ^ b).nonzeroBitCount
    }

    /// The image as `side` x `side` grey values, each the mean of the pixels it covers (on white
    /// where the image is transparent).
    static func shrunkGrey(_ image: DecodedImage, in region: ImageRegion) -> [Double] {
        var sums = [Double](repeating: 0, count: side * side)
        var counts = [Double](repeating: 0, count: side * side)
        let width = max(region.width, 1)
        let height = max(region.height, 1)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<region.height {
                let row = y * side / height
                for x in 0..<region.width {
                    let offset = ((region.y + y) * image.width + region.x + x) * 4
                    let alpha = Double(pixels[offset + 3]) / 255
                    let red: Double = 0.299 * Double(pixels[offset])
                    let green: Double = 0.587 * Double(pixels[offset + 1])
                    let blue: Double = 0.114 * Double(pixels[offset + 2])
                    let luma = red + green + blue
                    let cell = row * side + x * side / width
                    let onWhite: Double = luma * alpha + 255 * (1 - alpha)
                    sums[cell] += onWhite
                    counts[cell] += 1
                }
            }
        }
        return zip(sums, counts).map { sum, count in count > 0 ? sum / count : 255 }
    }

    /// The 8 x 8 lowest frequencies of the two-dimensional DCT-II of `grey`, row by row.
    static func lowFrequencies(_ grey: [Double]) -> [Double] {
        let n = side
        // cos((2x + 1) u π / 2n) for the 8 lowest u, each of the n positions.
        var basis = [[Double]](repeating: [Double](repeating: 0, count: n), count: 8)
        for u in 0..<8 {
            for x in 0..<n {
                let angle: Double = Double(2 * x + 1) * Double(u) * Double.pi / Double(2 * n)
                basis[u][x] = cos(angle)
            }
        }
        // Rows first (8 frequencies of each of the n rows), then columns.
        var rows = [Double](repeating: 0, count: n * 8)
        for y in 0..<n {
            for u in 0..<8 {
                var sum = 0.0
                for x in 0..<n { sum += grey[y * n + x] * basis[u][x] }
                rows[y * 8 + u] = sum
            }
        }
        var frequencies = [Double](repeating: 0, count: 64)
        for v in 0..<8 {
            for u in 0..<8 {
                var sum = 0.0
                for y in 0..<n { sum += rows[y * 8 + u] * basis[v][y] }
                frequencies[v * 8 + u] = sum
            }
        }
        return frequencies
    }
}
