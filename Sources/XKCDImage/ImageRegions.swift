/// A rectangle of an image, in pixels from its top left corner.
public struct ImageRegion: Sendable, Hashable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// The region from its corners, `x1` and `y1` past its last column and row.
    init(x0: Int, y0: Int, x1: Int, y1: Int) {
        self.init(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The parts of an image that may be a comic or a panel of one, found by cutting it along the
/// rows and columns that hold nothing: the comic inside a chat or a slide screenshot, the panels
/// of a comic, the panels of a crop. ``PerceptualHash`` hashes each, so that a crop of one or two
/// panels, or a screenshot around a comic, is found by its picture as a whole copy is
/// (docs/identify.md).
///
/// Two ways of seeing "nothing", as neither finds every cut:
/// - rows and columns of the background (the median colour of the image's edge), a comic's
///   white gutters in a chat window's dark page;
/// - rows and columns of one colour, whatever it is, such as the white gutters of a comic
///   whose edge is its panels' black borders (Frogger).
/// Each part is cut again, three times deep; parts smaller than ``minimumShare`` of the image are
/// left out.
public enum ImageRegions {
    /// The smallest part kept, as a share of the image's area.
    static let minimumShare = 0.02
    /// How many times a part is cut again.
    static let depth = 3

    /// The regions of `image` worth hashing, the whole image's content first; empty for an image
    /// of one colour.
    ///
    /// - Parameter image: the pixels.
    /// - Returns: distinct regions, at most a few dozen.
    public static func regions(of image: DecodedImage) -> [ImageRegion] {
        let grey = GreyImage(image)
        var found: [ImageRegion] = []
        let whole = ImageRegion(x: 0, y: 0, width: image.width, height: image.height)
        let background = grey.edgeMedian()
        // A background gap narrower than this (1 % of the shorter side) is the space between a
        // drawing's strokes, not between parts.
        let gap = max(2, min(image.width, image.height) / 100)
        cut(whole, in: grey, depth: 0, into: &found, minimumSide: 40, minimumGap: gap) { line in
            // Nothing of the background's colour but 40 grey levels.
            !line.contains { abs(Int($0) - background) > 40 }
        }
        cut(whole, in: grey, depth: 0, into: &found, minimumSide: 24, minimumGap: 1) { line in
            // At most 2 % of the line differs from its own median by more than 24 grey levels.
            let median = GreyImage.median(line)
            return line.count { abs(Int($0) - median) > 24 } * 50 <= line.count
        }
        let smallest = Double(image.width * image.height) * minimumShare
        var seen: Set<ImageRegion> = []
        return found.filter { region in
            Double(region.width * region.height) >= smallest && seen.insert(region).inserted
        }
    }

    /// Trims `region` to its content, keeps it, and cuts it along its empty rows (or else
    /// columns) into parts that are cut in turn.
    private static func cut(
        _ region: ImageRegion, in grey: GreyImage, depth: Int, into found: inout [ImageRegion], minimumSide: Int,
        minimumGap: Int, isEmpty: ([UInt8]) -> Bool
    ) {
        guard region.width >= minimumSide, region.height >= minimumSide else { return }
        let rowIsFull = (0..<region.height).map {
            !isEmpty(grey.row(region.y + $0, from: region.x, count: region.width))
        }
        let columnIsFull = (0..<region.width).map {
            !isEmpty(grey.column(region.x + $0, from: region.y, count: region.height))
        }
        guard let top = rowIsFull.firstIndex(of: true), let bottom = rowIsFull.lastIndex(of: true),
            let left = columnIsFull.firstIndex(of: true), let right = columnIsFull.lastIndex(of: true)
        else { return }
        let content = ImageRegion(
            x0: region.x + left, y0: region.y + top, x1: region.x + right + 1, y1: region.y + bottom + 1)
        guard content.width >= minimumSide, content.height >= minimumSide else { return }
        found.append(content)
        guard depth < Self.depth else { return }
        // Rows first: a comic's tiers, a chat's messages; then columns: the panels of a tier.
        for (isFull, alongRows) in [(Array(rowIsFull[top...bottom]), true), (Array(columnIsFull[left...right]), false)]
        {
            let parts = runs(of: isFull, minimumGap: minimumGap)
            guard parts.count > 1 else { continue }
            for part in parts where part.count >= minimumSide {
                let piece =
                    alongRows
                    ? ImageRegion(
                        x: content.x, y: content.y + part.lowerBound, width: content.width, height: part.count)
                    : ImageRegion(
                        x: content.x + part.lowerBound, y: content.y, width: part.count, height: content.height)
                cut(
                    piece, in: grey, depth: depth + 1, into: &found, minimumSide: minimumSide, minimumGap: minimumGap,
                    isEmpty: isEmpty)
            }
            return
        }
    }

    /// The runs of `true` in `flags`, as ranges of their indices, two runs joined when fewer
    /// than `minimumGap` `false`s part them.
    static func runs(of flags: [Bool], minimumGap: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start: Int?
        for (index, flag) in flags.enumerated() {
            if flag, start == nil { start = index }
            if !flag, let first = start {
                runs.append(first..<index)
                start = nil
            }
        }
        if let first = start { runs.append(first..<flags.count) }
        return runs.reduce(into: []) { joined, run in
            if let last = joined.last, run.lowerBound - last.upperBound < minimumGap {
                joined[joined.count - 1] = last.lowerBound..<run.upperBound
            } else {
                joined.append(run)
            }
        }
    }
}

/// An image as grey levels 0-255 (luma, on white where transparent), row by row.
struct GreyImage {
    let width: Int
    let height: Int
    let levels: [UInt8]

    init(_ image: DecodedImage) {
        width = image.width
        height = image.height
        levels = image.pixels.withUnsafeBufferPointer { pixels in
            (0..<image.width * image.height).map { index in
                let offset = index * 4
                let luma =
                    (299 * Int(pixels[offset]) + 587 * Int(pixels[offset + 1]) + 114 * Int(pixels[offset + 2])) / 1000
                let alpha = Int(pixels[offset + 3])
                return UInt8((luma * alpha + 255 * (255 - alpha)) / 255)
            }
        }
    }

    func row(_ y: Int, from x: Int, count: Int) -> [UInt8] {
        Array(levels[y * width + x..<y * width + x + count])
    }

    func column(_ x: Int, from y: Int, count: Int) -> [UInt8] {
        (y..<y + count).map { levels[$0 * width + x] }
    }

    /// The median grey of the pixels on the image's four edges: its background, mostly.
    func edgeMedian() -> Int {
        guard width > 0, height > 0 else { return 255 }
        return Self.median(
            row(0, from: 0, count: width) + row(height - 1, from: 0, count: width) + column(0, from: 0, count: height)
                + column(width - 1, from: 0, count: height))
    }

    /// The median of grey levels, by counting each level.
    static func median(_ levels: [UInt8]) -> Int {
        var counts = [Int](repeating: 0, count: 256)
        for level in levels { counts[Int(level)] += 1 }
        var seen = 0
        for (level, count) in counts.enumerated() {
            seen += count
            if seen * 2 > levels.count { return level }
        }
        return 255
    }
}
