import GRDB
import GRDBSQLite
import XKCDModel

extension ComicDatabase.SearchView {
    /// The cosine similarity of `query` with each of the vectors `model` made of a comic's
    /// passages, in passage order, indexed by comic number (none for a comic without vectors).
    ///
    /// ```sql
    /// SELECT comicID, vector FROM comicVector WHERE model = ? ORDER BY comicID, passage
    /// ```
    public func passageSimilarities(to query: [Float], model: String) throws -> [[Float]] {
        var similarities: [[Float]] = []
        let statement = try db.cachedStatement(
            sql: "SELECT comicID, vector FROM comicVector WHERE model = ? ORDER BY comicID, passage")
        try query.withUnsafeBufferPointer { query in
            try statement.forEachRow(binding: [.text(model)]) { row in
                let id = row.integer(0)
                let bytes = row.bytes(1)
                guard id >= 0, bytes.count == query.count * MemoryLayout<Float>.size else { return }
                if id >= similarities.count {
                    similarities.append(contentsOf: repeatElement([], count: id + 1 - similarities.count))
                }
                let similarity = Self.dot(query, bytes)
                // Far from unit length or NaN: no vector of the model's (``vectorSimilarities(to:model:)``).
                similarities[id].append(similarity <= 1.001 ? similarity : 0)
            }
        }
        return similarities
    }
}
