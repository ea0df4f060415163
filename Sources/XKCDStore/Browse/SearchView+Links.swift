import GRDB
import XKCDModel

extension ComicDatabase.SearchView {
    /// How many other comics' explanations link to each of `ids` (those none links to are left
    /// out): the comics explain xkcd keeps coming back to, which people link most too.
    ///
    /// ```sql
    /// SELECT linkedID, count(*) FROM comicLink WHERE linkedID IN (:ids) GROUP BY linkedID
    /// ```
    /// A process that searches again keeps every comic's count (``LinkCountCache``).
    package func linkingCounts(to ids: [Comic.ID]) throws(StoreError) -> [Comic.ID: Int] {
        guard !ids.isEmpty else { return [:] }
        return try wrapped {
            if let kept = try linkCountCache.counts(db) {
                var counts: [Comic.ID: Int] = [:]
                for id in ids { if let count = kept[id] { counts[id] = count } }
                return counts
            }
            var counts: [Comic.ID: Int] = [:]
            let rows = try SQLRequest<Row>(
                literal: "SELECT linkedID, count(*) FROM comicLink WHERE linkedID IN \(ids) GROUP BY linkedID"
            ).fetchCursor(db)
            while let row = try rows.next() {
                counts[row[0]] = row[1]
            }
            return counts
        }
    }
}
