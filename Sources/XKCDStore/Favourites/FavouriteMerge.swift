import XKCDModel

/// What a merge of favourites changed.
public struct FavouriteMerge: Sendable, Equatable {
    /// Comics that were not favourites before, ascending.
    public var addedFavourites: [Comic.ID] = []
    /// Tags newly attached, counted once per comic.
    public var addedTags: Int = 0

    public var isEmpty: Bool { addedFavourites.isEmpty && addedTags == 0 }
}
