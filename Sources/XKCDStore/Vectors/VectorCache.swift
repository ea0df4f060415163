import GRDB

/// The sentence vectors of one model kept in memory, for a process that searches by meaning more
/// than once (the REPL, the server): reading the 3,281 vectors from the file took 2-2.5 ms of
/// every such search, comparing them with the query a tenth of that.
///
/// They are kept from the second scan of the same vectors on, so a one-shot search reads them
/// once from the file, as it goes, and keeps nothing. Kept vectors are used while the index's
/// ``Setting/vectorsVersion`` is the one they were read at: triggers raise it with every change
/// to `comicVector`, whichever connection or process makes it. An index without that setting
/// (a read-only file of an earlier version) is always read from the file.
final class VectorCache: Sendable {
    /// The vectors `model` made, `dimensions` floats long, as the file held them at `version`.
    struct Vectors: Sendable {
        let model: String
        let version: String
        let dimensions: Int
        /// The comic of each vector, in the order of comic and passage.
        let comicIDs: [Int]
        /// The vectors one after another, `dimensions` floats each, in the same order.
        let values: [Float]
    }

    private let store = KeptFromSecondRead<VectorsKey, Vectors>()

    /// The vectors kept now, if any.
    var kept: Vectors? { store.kept }

    /// The vectors `model` made, `dimensions` long, in memory: kept ones while the index's
    /// version has not changed, or read and kept now when the same vectors were scanned before.
    /// Nil when the caller is to read them from the file (their first scan, or no version).
    func vectors(model: String, dimensions: Int, _ db: Database) throws -> Vectors? {
        guard let version = try ComicDatabase.setting(.vectorsVersion, db) else { return nil }
        let key = VectorsKey(model: model, version: version, dimensions: dimensions)
        return try store.value(at: key) { try Self.load(key, db) }
    }

    /// Every vector of `key`'s model and length, in the order of comic and passage.
    private static func load(_ key: VectorsKey, _ db: Database) throws -> Vectors {
        var (comicIDs, values): ([Int], [Float]) = ([], [])
        try db.cachedStatement(sql: "SELECT comicID, vector FROM comicVector WHERE model = ? ORDER BY comicID, passage")
            .forEachRow(binding: [.text(key.model)]) { row in
                let (id, bytes) = (row.integer(0), row.bytes(1))
                guard id >= 0, values.appendVector(bytes, dimensions: key.dimensions) else { return }
                comicIDs.append(id)
            }
        return Vectors(
            model: key.model, version: key.version, dimensions: key.dimensions, comicIDs: comicIDs, values: values)
    }
}

/// What vectors kept in memory were read at: the model that made them, the index's version of
/// them, and their length.
struct VectorsKey: Equatable, Sendable {
    let model: String
    let version: String
    let dimensions: Int
}

extension [Float] {
    /// Appends the floats a vector's blob holds, when it holds `dimensions` of them.
    ///
    /// - Returns: whether it did.
    mutating func appendVector(_ bytes: UnsafeRawBufferPointer, dimensions: Int) -> Bool {
        guard bytes.count == dimensions * MemoryLayout<Float>.size else { return false }
        // A blob's bytes need not be aligned for floats: copied as bytes.
        let offset = count * MemoryLayout<Float>.size
        append(contentsOf: repeatElement(0, count: dimensions))
        withUnsafeMutableBytes { values in
            UnsafeMutableRawBufferPointer(rebasing: values[offset...]).copyMemory(from: bytes)
        }
        return true
    }
}
