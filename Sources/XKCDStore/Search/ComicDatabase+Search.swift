import Foundation
import GRDB
import XKCDModel

extension ComicDatabase {
    /// Ids of the comics that satisfy `text`, ascending (see ``Snapshot/comicIDs(matching:)``).
    public func comicIDs(matching text: TextQuery) throws(StoreError) -> [Comic.ID] {
        try snapshot { snapshot throws(StoreError) in try snapshot.comicIDs(matching: text) }
    }

    /// The most frequent indexed words starting with `prefix`, to rank `prefix*` queries.
    public func commonWords(startingWith prefix: String, limit: Int) throws(StoreError) -> [String] {
        try snapshot { snapshot throws(StoreError) in try snapshot.commonWords(startingWith: prefix, limit: limit) }
    }
}
