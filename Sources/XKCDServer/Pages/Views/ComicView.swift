import FoundationEssentials
import XKCDFiles
import XKCDKit

/// The template `comic.mustache` (and the home page's comic).
struct ComicView: Sendable {
    struct Related: Sendable {
        var num: Int
        var title: String
        var why: String
    }

    var num: Int
    var title: String
    var date: String
    var alt: String
    /// `/images/N`, or nil when the comic has no image or it could not be fetched lately.
    var image: String?
    /// False for a comic without an image of its own (#1608, #1663).
    var hasOwnImage: Bool
    var isInteractive: Bool
    var xkcdURL: String
    var explainURL: String
    var previous: Int?
    var next: Int?
    var first: Int?
    var latest: Int?
    var explanation: [String]
    var hasExplanation: Bool
    var transcript: String?
    var related: [Related]
    var hasRelated: Bool
    var isFavourite: Bool
    var tags: String
    var isReadOnly: Bool

    init(page: ComicPage, cache: ImageCache, neighbours: ComicNeighbours, related: [Related], isReadOnly: Bool) {
        let comic = page.comic
        num = comic.id
        title = sanitized(comic.title)
        date = comic.date.description
        alt = sanitized(comic.alt)
        hasOwnImage = ImageCache.fileName(comic: comic.id, imageURL: comic.imageURL) != nil
        // `/images/N` fetches an image not kept yet; one that could not be had lately is not
        // asked for again (the route would answer 404 at once, and the page show a broken image).
        let isMissing = cache.missing(comic: comic.id, imageURL: comic.imageURL) != nil
        image = hasOwnImage && !isMissing ? "/images/\(comic.id)" : nil
        isInteractive = page.isInteractive
        xkcdURL = comic.url
        explainURL = comic.explainURL
        previous = neighbours.previous
        next = neighbours.next
        first = neighbours.first
        latest = neighbours.latest
        explanation = (page.explanation?.page.explanation ?? "").components(separatedBy: "\n\n")
            .map { sanitized($0) }.filter { !$0.isEmpty }
        hasExplanation = !explanation.isEmpty
        transcript = page.transcript.isEmpty ? nil : sanitized(page.transcript, keepingNewlines: true)
        self.related = related
        hasRelated = !related.isEmpty
        isFavourite = page.favourite != nil
        tags = page.favourite?.tags.joined(separator: " ") ?? ""
        self.isReadOnly = isReadOnly
    }
}
