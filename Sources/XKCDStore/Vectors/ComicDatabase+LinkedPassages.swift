import FoundationEssentials
import GRDB
import XKCDModel

extension ComicDatabase {
    /// Makes `passages` the index's linked passages: those no longer given are deleted, new ones
    /// added without a vector, and those already held keep theirs, so that a run given the same
    /// file embeds nothing again.
    ///
    /// - Returns: how many were added and how many deleted.
    package func replaceLinkedPassages(_ passages: [LinkedPassage]) throws(StoreError) -> (added: Int, deleted: Int) {
        try write { db in
            var held: [String: Int64] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT id, comicID, text FROM linkedPassage")
            while let row = try rows.next() {
                held[Self.linkedPassageKey(row["comicID"], row["text"])] = row["id"]
            }
            var kept = Set<Int64>()
            var added = 0
            let insert = try db.cachedStatement(
                sql: "INSERT INTO linkedPassage(comicID, text, source) VALUES (?, ?, ?)")
            let update = try db.cachedStatement(sql: "UPDATE linkedPassage SET source = ? WHERE id = ?")
            for passage in passages {
                let key = Self.linkedPassageKey(passage.comic, passage.text)
                if let id = held[key] {
                    guard kept.insert(id).inserted else { continue }
                    try update.execute(arguments: [passage.source, id])
                } else {
                    try insert.execute(arguments: [passage.comic, passage.text, passage.source])
                    held[key] = db.lastInsertedRowID
                    kept.insert(db.lastInsertedRowID)
                    added += 1
                }
            }
            let gone = Set(held.values).subtracting(kept)
            try db.execute(
                sql: "DELETE FROM linkedPassage WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [jsonArray(gone.map(Int.init))])
            return (added, gone.count)
        }
    }

    private static func linkedPassageKey(_ comic: Int, _ text: String) -> String { "\(comic)\u{0}\(text)" }

    /// The linked passages with no vector of `model`, `dimensions` floats long: each one's row
    /// and text.
    package func linkedPassagesToEmbed(model: String, dimensions: Int) throws(StoreError) -> [(id: Int64, text: String)]
    {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, text FROM linkedPassage
                    WHERE model IS NOT ? OR vector IS NULL OR length(vector) != ? ORDER BY id
                    """,
                arguments: [model, dimensions * MemoryLayout<Float>.size]
            ).map { row in (row["id"], row["text"]) }
        }
    }

    /// Stores each linked passage's vector, made by `model`, in one transaction.
    package func storeLinkedPassageVectors(_ vectors: [(id: Int64, vector: [Float])], model: String)
        throws(StoreError)
    {
        guard !vectors.isEmpty else { return }
        try write { db in
            let update = try db.cachedStatement(sql: "UPDATE linkedPassage SET model = ?, vector = ? WHERE id = ?")
            for (id, vector) in vectors {
                try update.execute(arguments: [model, vector.withUnsafeBytes { Data($0) }, id])
            }
        }
    }

    /// How many linked passages have a vector of `model`: those `relevant` reads.
    package func embeddedLinkedPassageCount(model: String) throws(StoreError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM linkedPassage WHERE model = ?", arguments: [model]) ?? 0
        }
    }
}

extension ComicDatabase.SearchView {
    /// For each comic of the index linked to a passage whose vector `model` made, the cosine
    /// similarity of `query` with the nearest such passage, leaving out those written at
    /// `excludedSources`. A passage may link a comic the index does not hold (yet): it is passed over.
    ///
    /// A few hundred vectors are read at each call: a tenth of the comics' own.
    ///
    /// ```sql
    /// SELECT comicID, source, vector FROM linkedPassage JOIN comic ON comic.id = comicID WHERE model = ?
    /// ```
    package func linkedPassageSimilarities(
        to query: [Float], model: String, excludingSources excludedSources: Set<String> = []
    ) throws -> [Comic.ID: Float] {
        var nearest: [Comic.ID: Float] = [:]
        let statement = try db.cachedStatement(
            sql: "SELECT comicID, source, vector FROM linkedPassage JOIN comic ON comic.id = comicID WHERE model = ?")
        try query.withUnsafeBufferPointer { query in
            try statement.forEachRow(binding: [.text(model)]) { row in
                let id = row.integer(0)
                let bytes = row.bytes(2)
                guard id >= 0, bytes.count == query.count * MemoryLayout<Float>.size else { return }
                if !excludedSources.isEmpty, excludedSources.contains(row.text(1)) { return }
                let similarity = Self.dot(query, bytes)
                // As with the comics' vectors: one far from unit length, or NaN, counts as none.
                guard similarity <= 1.001, similarity > nearest[id, default: -1] else { return }
                nearest[id] = similarity
            }
        }
        return nearest
    }
}
