import Foundation
import Testing
import XKCDFiles
import _XKCDTestSupport

/// A comic whose image could not be fetched is left alone for an hour, then asked for again;
/// an image kept meanwhile ends that at once. The clock is passed in.
@Suite("images remembered as missing")
struct ImageCacheTests {
    @Test func aMissingImageIsRememberedForAnHour() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "xkcd-images-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = ImageCache(directory: directory)
        let image = "https://imgs.xkcd.com/comics/exploits_of_a_mom.png"
        #expect(cache.missing(comic: 327, imageURL: image) == nil)

        cache.rememberMissing(
            comic: 327, imageURL: image, reason: "could not connect to imgs.xkcd.com (host not found)")
        let now = Date()
        let missing = try #require(cache.missing(comic: 327, imageURL: image, now: now))
        #expect(missing.reason == "could not connect to imgs.xkcd.com (host not found)")
        #expect(abs(missing.until.timeIntervalSince(missing.since) - 3600) < 1)
        #expect(cache.missingCount(now: now) == 1)
        #expect(cache.usage().images == 0, "a remembered failure is not an image")
        #expect(cache.missing(comic: 327, imageURL: image, now: now.addingTimeInterval(3599)) != nil)
        #expect(cache.missing(comic: 327, imageURL: image, now: now.addingTimeInterval(3601)) == nil)
        #expect(cache.missingCount(now: now.addingTimeInterval(3601)) == 0)

        try cache.keep(Data([1, 2, 3]), comic: 327, imageURL: image)
        #expect(cache.missing(comic: 327, imageURL: image, now: now) == nil, "kept: no longer missing")
        #expect(cache.usage().images == 1)
    }
}
