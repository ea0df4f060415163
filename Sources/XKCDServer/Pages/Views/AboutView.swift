import XKCDKit

/// The template `about.mustache`: what the index holds.
struct AboutView: Sendable {
    var comics: Int
    var latest: Int?
    var explained: Int
    var favourites: Int
    var images: Int
    var model: String?
    var embedded: Int
    var lastUpdate: String?

    init(_ stats: StatsDocument) {
        comics = stats.comics
        latest = stats.latest
        explained = stats.explained
        favourites = stats.favourites
        images = stats.images
        model = stats.semanticSearch ? stats.semanticModel : nil
        embedded = stats.embeddedComics
        lastUpdate = stats.lastUpdate
    }
}
