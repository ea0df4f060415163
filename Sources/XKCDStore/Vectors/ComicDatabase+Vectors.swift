import FoundationEssentials
import GRDB
import GRDBSQLite
import Glibc
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
    ///
    /// A vector that is not of unit length (NaN from a broken model, or taken from a file before
    /// vectors were checked) counts as one of no dimensions, so the comic is embedded again.
    package func vectorSources() throws(StoreError) -> [Comic.ID: VectorSource] {
        try read { db in
            var sources: [Comic.ID: VectorSource] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT comicID, model, textDigest, vector FROM comicVector")
            while let row = try rows.next() {
                let id: Comic.ID = row["comicID"]
                let vector = (row["vector"] as Data?).map { $0.withUnsafeBytes(floats(in:)) } ?? []
                var source = VectorSource(
                    model: row["model"], textDigest: row["textDigest"],
                    dimensions: ComicVector.isUnitLength(vector) ? vector.count : 0)
                if let known = sources[id], known.model == source.model, known.textDigest == source.textDigest {
                    source.dimensions = min(known.dimensions, source.dimensions)
                }
                sources[id] = source
            }
            return sources
        }
    }

    /// Replaces the vectors of every comic in `vectors` by those given, in one transaction.
    package func replaceVectors(_ vectors: [ComicVector]) throws(StoreError) {
        guard !vectors.isEmpty else { return }
        try write { db in
            let ids = Array(Set(vectors.map(\.id)))
            try db.execute(
                sql: "DELETE FROM comicVector WHERE comicID IN (SELECT value FROM json_each(?))",
                arguments: [jsonArray(ids)])
            let insert = try db.cachedStatement(
                sql: "INSERT INTO comicVector(comicID, passage, model, textDigest, vector) VALUES (?, ?, ?, ?, ?)")
            for vector in vectors {
                let blob = vector.vector.withUnsafeBytes { Data($0) }
                try insert.execute(arguments: [vector.id, vector.passage, vector.model, vector.textDigest, blob])
            }
        }
    }

    /// How many comics have vectors made by `model`.
    package func embeddedComicCount(model: String) throws(StoreError) -> Int {
        try read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(DISTINCT comicID) FROM comicVector WHERE model = ?", arguments: [model])
                ?? 0
        }
    }
}

extension ComicDatabase.SearchView {
    /// The cosine similarity of `query` with each comic's vectors made by `model`, the best of a
    /// comic's passages, indexed by comic number (0 for a comic without vectors).
    ///
    /// Vectors are unit length, so the cosine is their dot product. Every vector is read: for
    /// three thousand comics a scan takes about as long as one lookup of a common word, and
    /// it needs no second index to keep in step. A process that scans the same vectors again
    /// keeps them in memory (``VectorCache``).
    ///
    /// ```sql
    /// SELECT comicID, vector FROM comicVector WHERE model = ?
    /// ```
    package func vectorSimilarities(to query: [Float], model: String) throws -> [Float] {
        var similarities: [Float] = []
        try forEachSimilarity(to: query, model: model) { id, similarity in
            if id >= similarities.count {
                similarities.append(contentsOf: repeatElement(0, count: id + 1 - similarities.count))
            }
            // Two unit vectors' dot product is at most 1: a stored vector far from unit length
            // (taken from a file before vectors were checked) or with NaN in it counts as
            // none, and never outweighs the rest.
            if similarity > similarities[id], similarity <= 1.001 { similarities[id] = similarity }
        }
        return similarities
    }

    /// Calls `body` with the comic's number and the dot product of `query` with each vector
    /// `model` made (in passage order when `inPassageOrder`). A vector of another length belongs
    /// to no model this query was made by, and is passed over.
    func forEachSimilarity(
        to query: [Float], model: String, inPassageOrder: Bool = false, _ body: (Int, Float) -> Void
    ) throws {
        if let kept = try vectorCache.vectors(model: model, dimensions: query.count, db) {
            // In the order of comic and passage, which is passage order too.
            query.withUnsafeBufferPointer { query in
                kept.values.withUnsafeBytes { values in
                    let bytesPerVector = query.count * MemoryLayout<Float>.size
                    for (index, id) in kept.comicIDs.enumerated() {
                        let vector = UnsafeRawBufferPointer(
                            rebasing: values[index * bytesPerVector..<(index + 1) * bytesPerVector])
                        body(id, Self.dot(query, vector))
                    }
                }
            }
            return
        }
        let order = inPassageOrder ? " ORDER BY comicID, passage" : ""
        let statement = try db.cachedStatement(sql: "SELECT comicID, vector FROM comicVector WHERE model = ?" + order)
        try query.withUnsafeBufferPointer { query in
            try statement.forEachRow(binding: [.text(model)]) { row in
                let id = row.integer(0)
                let bytes = row.bytes(1)
                guard id >= 0, bytes.count == query.count * MemoryLayout<Float>.size else { return }
                body(id, Self.dot(query, bytes))
            }
        }
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
    static func dot(_ query: UnsafeBufferPointer<Float>, _ bytes: UnsafeRawBufferPointer) -> Float {
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
    /// The largest file of precomputed vectors read: ten times the snapshot's (6.7 MB for 3,281
    /// comics), so that a file made for the index of many more comics than xkcd will have in
    /// decades still fits, and a hostile one cannot make a run read for long.
    public static let vectorFileSizeLimit = 64 << 20

    /// Reads, row by row, the vectors held by a file that `scripts/export-vectors.sh` wrote: an
    /// SQLite file with the index's `comicVector` table. The snapshot ships one, so that indexing
    /// it does not embed every comic again.
    ///
    /// Only a regular file within ``vectorFileSizeLimit`` is opened, and only a plain table with
    /// the expected columns is read (a view or a generated column could compute rows without end
    /// or blobs of any size). A row is given to `body` when it is a vector of `model`: `dimensions`
    /// floats of unit length. A vector blob of another length is never loaded.
    ///
    /// - Parameters:
    ///   - path: the file of vectors.
    ///   - model: the name of the model whose vectors are read; rows of other models are skipped
    ///     and not counted.
    ///   - dimensions: how many floats a vector of `model` has.
    ///   - body: given each vector read; returns false to stop reading (the run was cancelled).
    /// - Returns: the rows that are no vector of `model`'s though they may be meant as one: a
    ///   cell of the wrong type, a blob of the wrong length, or floats not of unit length.
    /// - Throws: ``StoreError/notAVectorFile(path:reason:)`` when the file is not such a file.
    package static func forEachVector(
        inFile path: String, model: String, dimensions: Int, _ body: (ComicVector) -> Bool
    ) throws(StoreError) -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .notAVectorFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .notAVectorFile(path: path, reason: "not a regular file")
        }
        guard status.st_size <= vectorFileSizeLimit else {
            throw .notAVectorFile(path: path, reason: "larger than \(vectorFileSizeLimit >> 20) MB")
        }
        var configuration = Configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        let rows: Int
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            rows = try queue.read { db throws -> Int in
                try checkVectorTable(db, path: path)
                var refused = 0
                let cursor = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT comicID, passage, model, textDigest,
                               CASE WHEN typeof(vector) = 'blob' AND length(vector) = ? THEN vector END
                        FROM comicVector
                        """,
                    arguments: [dimensions * MemoryLayout<Float>.size])
                while let row = try cursor.next() {
                    let cells = (0..<5).map { (row[$0] as DatabaseValue).storage }
                    if case .string(let other) = cells[2], other != model { continue }
                    guard case .int64(let id) = cells[0], case .int64(let passage) = cells[1],
                        case .string(let digest) = cells[3], case .blob(let data) = cells[4],
                        let id = Int(exactly: id), let passage = Int(exactly: passage)
                    else {
                        refused += 1
                        continue
                    }
                    let vector = data.withUnsafeBytes(floats(in:))
                    guard ComicVector.isUnitLength(vector) else {
                        refused += 1
                        continue
                    }
                    guard body(ComicVector(id: id, passage: passage, model: model, textDigest: digest, vector: vector))
                    else {
                        break
                    }
                }
                return refused
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .notAVectorFile(path: path, reason: "not an SQLite file, or a damaged one")
        }
        return rows
    }

    /// Throws unless `comicVector` is a plain table with the five columns the indexer wrote.
    private static func checkVectorTable(_ db: Database, path: String) throws(StoreError) {
        func refuse(_ reason: String) -> StoreError { .notAVectorFile(path: path, reason: reason) }
        let found = try wrapped {
            try Row.fetchOne(
                db,
                sql:
                    "SELECT type, sql LIKE 'CREATE VIRTUAL%' AS isVirtual FROM sqlite_schema WHERE name = 'comicVector' COLLATE NOCASE"
            )
        }
        guard let found else { throw refuse("it has no comicVector table") }
        guard case .string("table") = (found["type"] as DatabaseValue).storage,
            case .int64(0) = (found["isVirtual"] as DatabaseValue).storage
        else { throw refuse("its comicVector is a view or a virtual table, not a plain table") }
        var names: Set<String> = []
        // hidden: 0 for a stored column, 2 and 3 for generated ones.
        for row in try wrapped({
            try Row.fetchAll(db, sql: "SELECT name, hidden FROM pragma_table_xinfo('comicVector')")
        }) {
            guard case .int64(0) = (row["hidden"] as DatabaseValue).storage,
                case .string(let name) = (row["name"] as DatabaseValue).storage
            else { throw refuse("its comicVector has generated columns") }
            names.insert(name)
        }
        for column in ["comicID", "passage", "model", "textDigest", "vector"] where !names.contains(column) {
            throw refuse("its comicVector has no column \(column)")
        }
    }
}

extension ComicVector {
    /// Whether `vector` is all finite numbers of unit length, as the model makes them: its
    /// output is normalised, so a vector far from length 1 was not made by it (and a huge one
    /// would outweigh every other in a dot product).
    package static func isUnitLength(_ vector: [Float]) -> Bool {
        var sum: Double = 0
        for value in vector {
            guard value.isFinite else { return false }
            sum += Double(value) * Double(value)
        }
        return abs(sum - 1) <= 1e-3
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
    package func nearestComics(to id: Comic.ID, limit: Int) throws(StoreError) -> [SimilarComic] {
        try searchView { view throws(StoreError) in
            try wrapped {
                guard
                    let model = try String.fetchOne(
                        view.db, sql: "SELECT model FROM comicVector WHERE comicID = ? LIMIT 1", arguments: [id]),
                    let vector = try view.vectors(of: id, model: model).first, ComicVector.isUnitLength(vector)
                else { return [] }
                let similarities = try view.vectorSimilarities(to: vector, model: model)
                var nearest = similarities.indices.filter { $0 != id && similarities[$0] > 0 }
                nearest.sort {
                    similarities[$0] > similarities[$1] || (similarities[$0] == similarities[$1] && $0 < $1)
                }
                let ids = Array(nearest.prefix(limit))
                return zip(ids, try view.summaries(of: ids)).compactMap { nearID, summary in
                    summary.map {
                        SimilarComic(id: nearID, title: $0.title, date: $0.date, similarity: similarities[nearID])
                    }
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
