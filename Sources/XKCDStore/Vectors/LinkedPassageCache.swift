import GRDB

/// The vectors of the linked passages (``LinkedPassage``) kept in memory, for a process that
/// ranks passages more than once (the REPL, the server), as ``VectorCache`` keeps the comics'.
///
/// They are kept from the second read at the same ``Setting/linkedPassagesVersion`` on, so a
/// one-shot `relevant` reads them once from the file and keeps nothing. Triggers raise that
/// version with every change to `linkedPassage`, and with every comic added or removed (only
/// passages linked to a comic the index holds are read), whichever connection or process makes
/// it. An index without the version's setting row is always read from the file.
final class LinkedPassageCache: Sendable {
    /// The passages whose vectors `model` made, `dimensions` floats long, as the file held them.
    struct Passages: Sendable {
        /// Each passage's row, in order.
        let rows: [Int64]
        /// The comic each passage is linked to, in the order of their rows.
        let comicIDs: [Int]
        /// Where each passage was written, in the same order.
        let sources: [String]
        /// Whether each was written for the comic (``LinkedPassage/isWritten``), in the same order.
        let isWritten: [Bool]
        /// The vectors one after another, `dimensions` floats each, in the same order.
        let values: [Float]
    }

    private let store = KeptFromSecondRead<VectorsKey, Passages>()

    /// Whether passages are kept now.
    var isKept: Bool { store.kept != nil }

    /// The passages `model` embedded, `dimensions` long, in memory, or nil when the caller is to
    /// read them from the file (their first read, or no version).
    func passages(model: String, dimensions: Int, _ db: Database) throws -> Passages? {
        guard let version = try ComicDatabase.setting(.linkedPassagesVersion, db) else { return nil }
        let key = VectorsKey(model: model, version: version, dimensions: dimensions)
        return try store.value(at: key) { try Self.load(key, db) }
    }

    private static func load(_ key: VectorsKey, _ db: Database) throws -> Passages {
        var (rows, comicIDs, sources): ([Int64], [Int], [String]) = ([], [], [])
        var (isWritten, values): ([Bool], [Float]) = ([], [])
        try db.cachedStatement(sql: ComicDatabase.SearchView.linkedPassageVectorsSQL)
            .forEachRow(binding: [.text(key.model)]) { row in
                let id = row.integer(0)
                guard id >= 0, values.appendVector(row.bytes(2), dimensions: key.dimensions) else { return }
                rows.append(Int64(row.integer(4)))
                comicIDs.append(id)
                sources.append(row.text(1))
                isWritten.append(row.integer(3) != 0)
            }
        return Passages(rows: rows, comicIDs: comicIDs, sources: sources, isWritten: isWritten, values: values)
    }
}
