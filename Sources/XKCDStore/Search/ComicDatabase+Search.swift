import FoundationEssentials
import GRDB
import XKCDModel

extension ComicDatabase {
    /// Ids of the comics that satisfy `text`, ascending, in a read of their own
    /// (``SearchView/comicIDs(matching:)`` within a search's view).
    package func readComicIDs(matching text: TextQuery) throws(StoreError) -> [Comic.ID] {
        try searchView { view throws(StoreError) in try view.comicIDs(matching: text) }
    }

    /// The most frequent indexed words starting with `prefix`, for completing a word typed, in
    /// a read of their own (``SearchView/commonWords(startingWith:limit:)`` within a search's view).
    package func readCommonWords(startingWith prefix: String, limit: Int) throws(StoreError) -> [String] {
        try searchView { view throws(StoreError) in try view.commonWords(startingWith: prefix, limit: limit) }
    }
}
