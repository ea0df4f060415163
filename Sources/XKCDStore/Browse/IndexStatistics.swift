import XKCDModel

/// Counts for `xkcd-search stats`.
public struct IndexStatistics: Sendable, Equatable, Codable {
    public var comics: Int
    public var latest: Comic.ID?
    public var explained: Int
    public var incompleteExplanations: Int
    public var favourites: Int
    public var tags: Int
    public var lastUpdate: String?
}
