import GRDB

extension ComicDatabase {
    /// One consistent view of the index, for the several lookups of one search.
    ///
    /// Every read of the database pays for a transaction, a schema check and a hop to a reader
    /// connection: about as much as the lookups of a simple search together. A snapshot makes
    /// them in one read:
    ///
    /// ```swift
    /// let page = try database.reading { snapshot in
    ///     let scores = try snapshot.termScores(for: ["bobby", "tables"])
    ///     return try snapshot.summaries(of: Array(scores.matchingAll.prefix(10)))
    /// }
    /// ```
    ///
    /// A snapshot is valid only inside the closure it is given to.
    public struct Snapshot {
        let db: Database
        let rankingCache: RankingCache
    }

    /// Runs `body` with a snapshot of the index, in one read transaction.
    ///
    /// - Throws: `StoreError` when the index can't be read, and whatever `body` throws.
    public func reading<T: Sendable>(_ body: @Sendable (Snapshot) throws -> T) throws -> T {
        let cache = rankingCache
        do {
            return try writer.read { db in try body(Snapshot(db: db, rankingCache: cache)) }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error)
        }
    }

    /// Runs `body` with a snapshot of its own.
    func snapshot<T: Sendable>(_ body: @Sendable (Snapshot) throws(StoreError) -> T) throws(StoreError) -> T {
        let cache = rankingCache
        return try read { db in try body(Snapshot(db: db, rankingCache: cache)) }
    }
}

@available(*, unavailable)
extension ComicDatabase.Snapshot: Sendable {}
