import FoundationEssentials

/// A comic someone keeps, with when they added it and their tags.
///
/// Favourites have no foreign key to `comic`: a favourite outlives any re-index, rebuild or
/// reload of the comics, and may name a comic the index does not hold yet (after an import).
public struct Favourite: Sendable, Hashable, Codable {
    public var id: Comic.ID
    public var addedAt: Date
    /// Normalised tags, sorted.
    public var tags: [String]

    public init(id: Comic.ID, addedAt: Date, tags: [String] = []) {
        self.id = id
        self.addedAt = addedAt
        self.tags = tags
    }
}

/// How many favourites carry one tag, for `fav tags`.
public struct TagCount: Sendable, Hashable, Codable {
    public var tag: String
    public var count: Int

    public init(tag: String, count: Int) {
        self.tag = tag
        self.count = count
    }
}
