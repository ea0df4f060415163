/// A change to the favourites: `fav add/remove/tag/untag`, `PUT` and `DELETE
/// /api/favourites/{n}` and the comic page's button. The tags are checked when the change is
/// made, before anything is read or written.
public struct FavouriteChange: Sendable, Hashable {
    /// What a change does to the favourite.
    public enum Action: Sendable, Hashable {
        /// Make the comic a favourite and attach the tags; adding again keeps the first date.
        case add
        /// Make the comic a favourite with exactly the tags: the same whether sent once or twice.
        case set
        /// Remove the favourite (the comic need not be indexed).
        case remove
        /// Attach the tags to a favourite.
        case tag
        /// Detach the tags from a favourite.
        case untag
    }

    /// What the change does.
    public var action: Action
    /// The comic as named; nil is the comic shown last.
    public var comic: ComicReference?
    /// The tags, as stored: lower-cased, in NFC, each once.
    public var tags: [String]

    /// A change with its tags checked and normalised.
    ///
    /// - Parameters:
    ///   - action: what to change.
    ///   - comic: the comic; nil for the comic shown last.
    ///   - tags: the tags as typed.
    /// - Throws: ``LibraryError/invalidTag(_:reason:)`` for a tag that is not one word of letters,
    ///   digits, `-` and `_`.
    public init(_ action: Action, comic: ComicReference?, tags: [String] = []) throws(LibraryError) {
        self.action = action
        self.comic = comic
        self.tags = try Library.normalisedTags(tags)
    }

    /// What a change did.
    public struct Outcome: Sendable, Hashable {
        /// The favourite as it is now (or as it was, when removed); nil after `tag` and `untag`.
        public var entry: FavouriteEntry?
        /// After `add`: false when the comic was a favourite already.
        public var isNew = false
        /// The tags newly attached (`add`, `tag`) or detached (`untag`).
        public var changedTags: [String] = []
    }

    /// Makes the change.
    ///
    /// - Parameter index: the index whose favourites change.
    /// - Throws: ``LibraryError`` for a comic not indexed or not a favourite, `StoreError.readOnly`
    ///   when the index may not be written.
    /// - Returns: the favourite after the change and the tags it changed.
    public func run(in index: OpenIndex) throws -> Outcome {
        let library = index.library
        switch action {
        case .add:
            let added = try library.addFavourite(comic, tags: tags)
            return Outcome(
                entry: FavouriteEntry(favourite: added.favourite, comic: added.comic), isNew: added.isNew,
                changedTags: added.addedTags)
        case .set:
            return Outcome(entry: try library.setFavourite(comic ?? .number(try library.resolve(nil)), tags: tags))
        case .remove:
            return Outcome(entry: try library.removeFavourite(comic))
        case .tag:
            return Outcome(changedTags: try library.tag(comic, with: tags))
        case .untag:
            return Outcome(changedTags: try library.untag(comic, removing: tags))
        }
    }
}

/// The favourites, or those with one tag: `fav list`, `GET /api/favourites` and the page's
/// `/favourites`.
public struct FavouriteListRequest: Sendable, Hashable {
    /// Only favourites with this tag, as stored; nil for all.
    public var tag: String?

    /// The request for the favourites with one tag, or all of them.
    ///
    /// - Parameter tag: the tag as typed; nil for all favourites.
    /// - Throws: ``LibraryError/invalidTag(_:reason:)`` for a tag no favourite could carry
    ///   (empty among them).
    public init(tag: String?) throws(LibraryError) {
        self.tag = try tag.map { raw throws(LibraryError) in try Library.normalisedTag(raw) }
    }

    /// The favourites by number, each with its comic when the index holds it.
    ///
    /// - Parameter index: the index to read.
    /// - Returns: the favourites asked for; empty when there are none.
    /// - Throws: `StoreError` when the index cannot be read.
    public func run(in index: OpenIndex) throws -> [FavouriteEntry] {
        try index.library.favourites(taggedWith: tag)
    }
}
