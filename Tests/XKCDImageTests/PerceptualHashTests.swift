import Foundation
import Testing
import XKCDImage
import _XKCDTestSupport

/// The part of `image` in `region`, as its own image: a crop as a person makes one.
private func cropped(_ image: DecodedImage, to region: ImageRegion) -> DecodedImage {
    var pixels: [UInt8] = []
    for y in region.y..<region.y + region.height {
        let start = (y * image.width + region.x) * 4
        pixels += image.pixels[start..<start + region.width * 4]
    }
    return DecodedImage(width: region.width, height: region.height, pixels: pixels)
}

/// The fewest bits any of `copy`'s hashes differs by from any of `original`'s.
private func nearest(_ copy: [UInt64], _ original: [UInt64]) -> Int {
    copy.flatMap { a in original.map { b in PerceptualHash.distance(a, b) } }.min() ?? 64
}

/// What `identify` finds a comic's picture by: the hashes of an image and of its parts
/// (docs/identify.md), and an animation's frames.
@Suite struct PerceptualHashTests {
    /// Panels cut from a comic on its gutters (two of 327's four, 936's upper and lower tier)
    /// share a hash with one of the comic's parts; another comic's parts do not come near.
    @Test(arguments: [
        ("exploits_of_a_mom.png", ImageRegion(x: 158, y: 0, width: 328, height: 205)),
        ("password_strength.png", ImageRegion(x: 0, y: 0, width: 740, height: 265)),
        ("password_strength.png", ImageRegion(x: 0, y: 265, width: 740, height: 336)),
    ])
    func panelsCutFromAComicAreNearAPartOfIt(_ file: String, _ region: ImageRegion) throws {
        let comic = try ImageDecoder.decode(try Fixtures.image(file))
        let other = PerceptualHash.hashes(of: try ImageDecoder.decode(try Fixtures.image("dependency.png")))
        let crop = PerceptualHash.hashes(of: cropped(comic, to: region))
        #expect(nearest(crop, PerceptualHash.hashes(of: comic)) <= 10)
        #expect(nearest(crop, other) > 10)
        #expect(PerceptualHash.distance(crop[0], PerceptualHash(of: comic).value) > 10, "the whole is not near")
    }

    /// A comic inside a chat window's screenshot: one of the screenshot's parts is the comic.
    @Test func aComicInsideAScreenshotIsOneOfItsParts() throws {
        let comic = try ImageDecoder.frames(try Fixtures.image("traffic_lights.gif")).flatMap(
            PerceptualHash.hashes(of:))
        let screenshot = try ImageDecoder.decode(try Fixtures.image("identify/traffic_lights-chat.png"))
        #expect(PerceptualHash.distance(PerceptualHash(of: screenshot).value, comic[0]) > 10)
        #expect(nearest(PerceptualHash.hashes(of: screenshot), comic) <= 10)
    }

    /// An animation gives frames spread over it, each whole; another image gives one.
    @Test func anAnimationGivesFramesSpreadOverIt() throws {
        let frames = try ImageDecoder.frames(try Fixtures.image("traffic_lights.gif"))
        #expect(frames.count == 8)
        #expect(frames.allSatisfy { $0.width == 713 && $0.height == 286 && $0.pixels.count == 713 * 286 * 4 })
        #expect(frames[0].pixels == (try ImageDecoder.decode(try Fixtures.image("traffic_lights.gif"))).pixels)
        #expect(Set(frames.map(\.pixels)).count > 1, "the lights change")
        let words = try ImageDecoder.frames(try Fixtures.image("identify/exploits_of_a_mom-words-later.gif"))
        #expect(words.count == 2)
        #expect(try ImageDecoder.frames(try Fixtures.image("exploits_of_a_mom.png")).count == 1)
    }

    /// A GIF of 10,000 one-pixel frames is refused before any frame is decoded.
    @Test func anAnimationOfThousandsOfFramesIsRefused() throws {
        let gif = Fixtures.animatedGIF(frames: 10_000)
        #expect(throws: ImageError.tooManyFrames(limit: ImageDecoder.maxFrames)) { try ImageDecoder.decode(gif) }
        #expect(throws: ImageError.tooManyFrames(limit: ImageDecoder.maxFrames)) { try ImageDecoder.frames(gif) }
        #expect(try ImageDecoder.frames(Fixtures.animatedGIF(frames: 3)).count == 3)
    }
}
