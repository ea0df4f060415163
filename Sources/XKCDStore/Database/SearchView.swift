import GRDB

extension ComicDatabase {
    /// One consistent view of the index, for the several lookups of one search.
    ///
    /// Every read of the database pays for a transaction, a schema check and a hop to a reader
    /// connection: about as much as the lookups of a simple search together. A view makes them
    /// in one read:
    ///
    /// ```swift
    /// let page = try database.reading { view in
    ///     let scores = try view.termScores(for: ["bobby", "tables"])
    ///     return try view.summaries(of: Array(scores.matchingAll.prefix(10)))
    /// }
    /// ```
    ///
    /// A view is valid only inside the closure it is given to. (Not GRDB's `DatabaseSnapshot`,
    /// which outlives its closure: this is one read transaction of the index's own connection.)
    public struct SearchView {
        let db: Database
        let rankingCache: RankingCache
        let vectorCache: VectorCache
        let linkCountCache: LinkCountCache
        let linkedPassageCache: LinkedPassageCache
    }

    /// Runs `body` with a view of the index, in one read transaction.
    ///
    /// - Throws: `StoreError` when the index can't be read, and whatever `body` throws.
    public func reading<T: Sendable>(_ body: @Sendable (SearchView) throws -> T) throws -> T {
        let (cache, vectors, links, passages) = (rankingCache, vectorCache, linkCountCache, linkedPassageCache)
        do {
            return try writer.read { db in
                try body(
                    SearchView(
                        db: db, rankingCache: cache, vectorCache: vectors, linkCountCache: links,
                        linkedPassageCache: passages))
            }
        } catch let error as DatabaseError {
            throw StoreError.wrapping(error)
        }
    }

    /// Runs `body` with a view of its own: the one-lookup methods of `ComicDatabase`
    /// (``readTermScores(for:weights:)``, ``readComicIDs(matching:)``,
    /// ``readCommonWords(startingWith:limit:)``) are each one read.
    func searchView<T: Sendable>(_ body: @Sendable (SearchView) throws(StoreError) -> T) throws(StoreError) -> T {
        let (cache, vectors, links, passages) = (rankingCache, vectorCache, linkCountCache, linkedPassageCache)
        return try read { db in
            try body(
                SearchView(
                    db: db, rankingCache: cache, vectorCache: vectors, linkCountCache: links,
                    linkedPassageCache: passages))
        }
    }
}

@available(*, unavailable)
extension ComicDatabase.SearchView: Sendable {}
