import Foundation
import GRDB
import GRDBSQLite
import XKCDModel

/// The searchable text of one comic, as the index holds it: what its sentence vectors are made from.
public struct ComicDocument: Sendable, Hashable {
    public var id: Comic.ID
    public var title: String
    public var alt: String
    public var transcript: String
    /// The explanation, followed by its trivia.
    public var explanation: String
}

/// One sentence vector of a comic: a passage of its text, as the model `model` reads it.
public struct ComicVector: Sendable, Hashable {
    public var id: Comic.ID
    /// Which passage of the comic's text (0 for the first); a comic has one vector or several.
    public var passage: Int
    /// The model's identity, so that vectors of another model are never compared with a query.
    public var model: String
    /// A digest of the tokens the model read of the comic's text, so that a comic whose text
    /// changed where the model reads it is embedded again.
    public var textDigest: String
    public var vector: [Float]

    public init(id: Comic.ID, passage: Int, model: String, textDigest: String, vector: [Float]) {
        self.id = id
        self.passage = passage
        self.model = model
        self.textDigest = textDigest
        self.vector = vector
    }
}

/// What a comic's vectors were made from.
public struct VectorSource: Sendable, Hashable {
    public var model: String
    public var textDigest: String
    /// The number of floats in the comic's shortest vector: one of another length is no vector
    /// of the model's.
    public var dimensions: Int

    public init(model: String, textDigest: String, dimensions: Int) {
        self.model = model
        self.textDigest = textDigest
        self.dimensions = dimensions
    }
}

extension ComicDatabase {
    /// The searchable text of the given comics, in ascending order.
    public func documents(ids: [Comic.ID]) throws(StoreError) -> [ComicDocument] {
        try read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM searchDocument WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
                arguments: [jsonArray(ids)])
            return rows.map { row in
                ComicDocument(
                    id: row["id"], title: row["title"], alt: row["alt"], transcript: row["transcript"],
                    explanation: row["explanation"])
            }
        }
    }

    /// For each comic that has vectors, the model and text they were made from.
    public func vectorSources() throws(StoreError) -> [Comic.ID: VectorSource] {
        try read { db in
            var sources: [Comic.ID: VectorSource] = [:]
            let rows = try Row.fetchAll(db, sql: """
                SELECT comicID, model, textDigest, min(length(vector)) / 4 AS dimensions FROM comicVector
                GROUP BY comicID, model, textDigest
                """)
            for row in rows {
                sources[row["comicID"]] = VectorSource(
                    model: row["model"], textDigest: row["textDigest"], dimensions: row["dimensions"])
            }
            return sources
        }
    }

    /// Replaces the vectors of every comic in `vectors` by those given, in one transaction.
    public func replaceVectors(_ vectors: [ComicVector]) throws(StoreError) {
        guard !vectors.isEmpty else { return }
        try write { db in
            let ids = Array(Set(vectors.map(\.id)))
            try db.execute(
                sql: "DELETE FROM comicVector WHERE comicID IN (SELECT value FROM json_each(?))", arguments: [jsonArray(ids)])
            let insert = try db.cachedStatement(
                sql: "INSERT INTO comicVector(comicID, passage, model, textDigest, vector) VALUES (?, ?, ?, ?, ?)")
            for vector in vectors {
                let blob = vector.vector.withUnsafeBytes { Data($0) }
                try insert.execute(arguments: [vector.id, vector.passage, vector.model, vector.textDigest, blob])
            }
        }
    }

    /// How many comics have vectors made by `model`.
    public func embeddedComicCount(model: String) throws(StoreError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT count(DISTINCT comicID) FROM comicVector WHERE model = ?", arguments: [model])
                ?? 0
        }
    }
}

extension ComicDatabase.Snapshot {
    /// The cosine similarity of `query` with each comic's vectors made by `model`, the best of a
    /// comic's passages, indexed by comic number (0 for a comic without vectors).
    ///
    /// Vectors are unit length, so the cosine is their dot product. Every vector is read: for
    /// three thousand comics a scan takes about as long as one lookup of a common word, and
    /// it needs no second index to keep in step.
    ///
    /// ```sql
    /// SELECT comicID, vector FROM comicVector WHERE model = ?
    /// ```
    public func vectorSimilarities(to query: [Float], model: String) throws -> [Float] {
        var similarities: [Float] = []
        let statement = try db.cachedStatement(sql: "SELECT comicID, vector FROM comicVector WHERE model = ?")
        try query.withUnsafeBufferPointer { query in
            try statement.forEachRow(binding: [.text(model)]) { row in
                let id = row.integer(0)
                let bytes = row.bytes(1)
                // A vector of another length belongs to no model this query was made by.
                guard id >= 0, bytes.count == query.count * MemoryLayout<Float>.size else { return }
                if id >= similarities.count { similarities.append(contentsOf: repeatElement(0, count: id + 1 - similarities.count)) }
                let similarity = Self.dot(query, bytes)
                if similarity > similarities[id] { similarities[id] = similarity }
            }
        }
        return similarities
    }

    /// The vectors of comic `id` made by `model`, one per passage (none when it has none).
    public func vectors(of id: Comic.ID, model: String) throws -> [[Float]] {
        var vectors: [[Float]] = []
        let statement = try db.cachedStatement(
            sql: "SELECT vector FROM comicVector WHERE comicID = ? AND model = ? ORDER BY passage")
        try statement.forEachRow(binding: [.integer(id), .text(model)]) { row in
            vectors.append(floats(in: row.bytes(0)))
        }
        return vectors
    }

    /// The dot product of `query` with the floats stored in `bytes` (the same count).
    ///
    /// Eight partial sums, so that the additions do not wait on one another; a blob's bytes
    /// need not be aligned for floats, so they are loaded unaligned.
    private static func dot(_ query: UnsafeBufferPointer<Float>, _ bytes: UnsafeRawBufferPointer) -> Float {
        var sums = SIMD8<Float>()
        let count = query.count
        var index = 0
        let queryBytes = UnsafeRawBufferPointer(query)
        while index + 8 <= count {
            let stored = bytes.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self)
            sums += queryBytes.loadUnaligned(fromByteOffset: index * 4, as: SIMD8<Float>.self) * stored
            index += 8
        }
        var total = sums.sum()
        while index < count {
            total += query[index] * bytes.loadUnaligned(fromByteOffset: index * 4, as: Float.self)
            index += 1
        }
        return total
    }
}

extension ComicDatabase {
    /// The vectors held by a file that `scripts/export-vectors.sh` wrote: an SQLite file with the
    /// index's `comicVector` table and nothing else. The snapshot ships one, so that indexing it
    /// does not embed every comic again.
    ///
    /// - Throws: ``StoreError/notAVectorFile(path:)`` when the file is not such a file.
    public static func vectors(inFile path: String) throws(StoreError) -> [ComicVector] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .cannotOpen(path: path, reason: StoreError.wrapping(error).description)
        }
        do {
            return try queue.read { db in
                // Each cell read as optional: a row of the wrong type or with a NULL is left out,
                // not a trap (GRDB's non-optional subscript traps on them).
                try Row.fetchAll(db, sql: "SELECT comicID, passage, model, textDigest, vector FROM comicVector").compactMap { row in
                    guard let id = row["comicID"] as Int?, let passage = row["passage"] as Int?,
                        let model = row["model"] as String?, let digest = row["textDigest"] as String?,
                        let data = row["vector"] as Data?, data.count % MemoryLayout<Float>.size == 0
                    else { return nil }
                    return ComicVector(
                        id: id, passage: passage, model: model, textDigest: digest, vector: data.withUnsafeBytes(floats(in:)))
                }
            }
        } catch {
            throw .notAVectorFile(path: path)
        }
    }
}

/// A comic near another in meaning: the cosine similarity of their vectors.
public struct SimilarComic: Sendable, Hashable {
    public var id: Comic.ID
    public var title: String
    public var date: ComicDate
    public var similarity: Float
}

extension ComicDatabase {
    /// The comics whose vectors are nearest to comic `id`'s, most similar first; none when the
    /// comic has no vector.
    ///
    /// Only vectors of the model that made the comic's own are compared, so no model needs
    /// loading: the index knows which one that was.
    public func nearestComics(to id: Comic.ID, limit: Int) throws(StoreError) -> [SimilarComic] {
        try snapshot { snapshot throws(StoreError) in
            try wrapped {
                guard
                    let model = try String.fetchOne(
                        snapshot.db, sql: "SELECT model FROM comicVector WHERE comicID = ? LIMIT 1", arguments: [id]),
                    let vector = try snapshot.vectors(of: id, model: model).first
                else { return [] }
                let similarities = try snapshot.vectorSimilarities(to: vector, model: model)
                var nearest = similarities.indices.filter { $0 != id && similarities[$0] > 0 }
                nearest.sort { similarities[$0] > similarities[$1] || (similarities[$0] == similarities[$1] && $0 < $1) }
                let ids = Array(nearest.prefix(limit))
                return zip(ids, try snapshot.summaries(of: ids)).compactMap { nearID, summary in
                    summary.map { SimilarComic(id: nearID, title: $0.title, date: $0.date, similarity: similarities[nearID]) }
                }
            }
        }
    }
}

/// The little-endian floats stored in a vector's blob, whose bytes need not be aligned for floats.
func floats(in bytes: UnsafeRawBufferPointer) -> [Float] {
    (0..<bytes.count / MemoryLayout<Float>.size).map {
        bytes.loadUnaligned(fromByteOffset: $0 * MemoryLayout<Float>.size, as: Float.self)
    }
}
