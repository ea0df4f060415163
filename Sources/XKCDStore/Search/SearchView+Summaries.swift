import GRDB
import XKCDModel

extension ComicDatabase.SearchView {
    /// Number, title and date of each of `ids`, in the same order; nil for a number the index
    /// does not hold.
    package func summaries(of ids: [Comic.ID]) throws(StoreError) -> [ComicSummary?] {
        guard !ids.isEmpty else { return [] }
        return try wrapped {
            var result = [ComicSummary?](repeating: nil, count: ids.count)
            try db.cachedStatement(
                sql: "SELECT r.key, c.id, c.title, c.date FROM json_each(?) AS r JOIN comic AS c ON c.id = r.value"
            )
            .forEachRow(binding: [.text(jsonArray(ids))]) { row in
                result[row.integer(0)] = row.summary(from: 1)
            }
            return result
        }
    }
}
