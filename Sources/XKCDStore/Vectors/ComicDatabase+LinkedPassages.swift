import FoundationEssentials
import GRDB
import XKCDModel

extension ComicDatabase {
    /// Makes `passages` the index's linked passages: those no longer given are deleted, new ones
    /// added without a vector, and those already held keep theirs, so that a run given the same
    /// file embeds nothing again. A passage given twice for one comic is one row, with the source
    /// and kind of its first.
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
                sql: "INSERT INTO linkedPassage(comicID, text, source, written) VALUES (?, ?, ?, ?)")
            // Only a row that changes is written: an unchanged file raises no version, so a
            // server keeps the passages it holds in memory.
            let update = try db.cachedStatement(
                sql: """
                    UPDATE linkedPassage SET source = ?1, written = ?2
                    WHERE id = ?3 AND (source IS NOT ?1 OR written IS NOT ?2)
                    """)
            for passage in passages {
                let key = Self.linkedPassageKey(passage.comic, passage.text)
                if let id = held[key] {
                    guard kept.insert(id).inserted else { continue }
                    try update.execute(arguments: [passage.source, passage.isWritten, id])
                } else {
                    try insert.execute(arguments: [passage.comic, passage.text, passage.source, passage.isWritten])
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

    /// The linked passages with no vector of `model`, `dimensions` floats long: each one's row,
    /// text and kind (``LinkedPassage/isWritten``).
    package func linkedPassagesToEmbed(
        model: String, dimensions: Int
    ) throws(StoreError) -> [(id: Int64, text: String, isWritten: Bool)] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, text, written FROM linkedPassage
                    WHERE model IS NOT ? OR vector IS NULL OR length(vector) != ? ORDER BY id
                    """,
                arguments: [model, dimensions * MemoryLayout<Float>.size]
            ).map { row in (row["id"], row["text"], row["written"]) }
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

    /// How many linked passages have a vector of `model`, those `relevant` reads: the ones people
    /// linked, and the situations written for the comics.
    package func embeddedLinkedPassageCounts(model: String) throws(StoreError) -> (linked: Int, written: Int) {
        try read { db in
            var counts = (linked: 0, written: 0)
            try db.cachedStatement(sql: "SELECT written, count(*) FROM linkedPassage WHERE model = ? GROUP BY written")
                .forEachRow(binding: [.text(model)]) { row in
                    if row.integer(0) != 0 { counts.written = row.integer(1) } else { counts.linked = row.integer(1) }
                }
            return counts
        }
    }
}

/// For each comic, the cosine of a passage with the nearest linked passage of each kind
/// (``LinkedPassage/isWritten``).
package struct LinkedPassageNearness: Sendable, Equatable {
    /// Nearest among the passages people linked the comic to.
    package var linked: [Comic.ID: Float] = [:]
    /// Nearest among the situations written for the comic.
    package var written: [Comic.ID: Float] = [:]
    /// The row of each comic's nearest written situation, whose text a reason may quote
    /// (``ComicDatabase/SearchView/linkedPassageTexts(_:)``).
    package var nearestWritten: [Comic.ID: Int64] = [:]

    package init(
        linked: [Comic.ID: Float] = [:], written: [Comic.ID: Float] = [:], nearestWritten: [Comic.ID: Int64] = [:]
    ) {
        self.linked = linked
        self.written = written
        self.nearestWritten = nearestWritten
    }

    /// Keeps `similarity` for comic `id` if the passage in `row` is the nearest of its kind so far.
    mutating func consider(_ id: Int, row: Int64, _ similarity: Float, isWritten: Bool) {
        // As with the comics' vectors: one far from unit length, or NaN, counts as none.
        guard similarity <= 1.001 else { return }
        if isWritten {
            guard similarity > written[id, default: -1] else { return }
            written[id] = similarity
            nearestWritten[id] = row
        } else if similarity > linked[id, default: -1] {
            linked[id] = similarity
        }
    }
}

extension ComicDatabase.SearchView {
    /// The linked passages whose vectors a model made (bound as the one argument), each with its
    /// comic, source and kind; only those linked to a comic the index holds.
    static let linkedPassageVectorsSQL = """
        SELECT comicID, source, vector, written, linkedPassage.id FROM linkedPassage JOIN comic ON comic.id = comicID
        WHERE model = ? ORDER BY linkedPassage.id
        """

    /// For each comic of the index linked to a passage whose vector `model` made, the cosine
    /// similarity of `query` with the nearest such passage of each kind, leaving out those
    /// found at `excludedSources`. A passage may link a comic the index does not hold (yet): it
    /// is passed over.
    ///
    /// A process that ranks passages again keeps their vectors in memory (``LinkedPassageCache``).
    package func linkedPassageSimilarities(
        to query: [Float], model: String, excludingSources excludedSources: Set<String> = []
    ) throws -> LinkedPassageNearness {
        var nearest = LinkedPassageNearness()
        let bytesPerVector = query.count * MemoryLayout<Float>.size
        if let kept = try linkedPassageCache.passages(model: model, dimensions: query.count, db) {
            query.withUnsafeBufferPointer { query in
                kept.values.withUnsafeBytes { values in
                    for (index, id) in kept.comicIDs.enumerated() {
                        if !excludedSources.isEmpty, excludedSources.contains(kept.sources[index]) { continue }
                        let vector = UnsafeRawBufferPointer(
                            rebasing: values[index * bytesPerVector..<(index + 1) * bytesPerVector])
                        nearest.consider(
                            id, row: kept.rows[index], Self.dot(query, vector), isWritten: kept.isWritten[index])
                    }
                }
            }
            return nearest
        }
        let statement = try db.cachedStatement(sql: Self.linkedPassageVectorsSQL)
        try query.withUnsafeBufferPointer { query in
            try statement.forEachRow(binding: [.text(model)]) { row in
                let id = row.integer(0)
                let bytes = row.bytes(2)
                guard id >= 0, bytes.count == bytesPerVector else { return }
                if !excludedSources.isEmpty, excludedSources.contains(row.text(1)) { return }
                nearest.consider(
                    id, row: Int64(row.integer(4)), Self.dot(query, bytes), isWritten: row.integer(3) != 0)
            }
        }
        return nearest
    }

    /// The text of each linked passage in `rows`, by row.
    ///
    /// ```sql
    /// SELECT id, text FROM linkedPassage WHERE id IN (SELECT value FROM json_each(?))
    /// ```
    package func linkedPassageTexts(_ rows: [Int64]) throws -> [Int64: String] {
        guard !rows.isEmpty else { return [:] }
        var texts: [Int64: String] = [:]
        try db.cachedStatement(sql: "SELECT id, text FROM linkedPassage WHERE id IN (SELECT value FROM json_each(?))")
            .forEachRow(binding: [.text(jsonArray(rows.map(Int.init)))]) { row in
                texts[Int64(row.integer(0))] = row.text(1)
            }
        return texts
    }
}
