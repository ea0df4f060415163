import GRDB

extension ComicDatabase {
    /// BM25F scores of `words` in a read of their own (``SearchView/termScores(for:weights:)``
    /// within a search's view).
    public func readTermScores(for words: [String], weights: RankingWeights = RankingWeights()) throws(StoreError)
        -> TermScores
    {
        try searchView { view throws(StoreError) in try view.termScores(for: words, weights: weights) }
    }

    /// Rebuilds the ranking statistics from the stored documents.
    ///
    /// Made from a snapshot of the documents, then written in a transaction of its own: the
    /// write lock, which favourites wait for, is held for the writing, not for reading and
    /// tokenizing every document. Documents stored in between
    /// (only the indexer stores them) change the generation, and the index is then made again
    /// inside the transaction.
    package func rebuildRankingIndex() throws(StoreError) {
        let (built, generation) = try read { db in (try RankingIndex.build(db), try DocumentLengths.generation(db)) }
        try write { db in
            if try DocumentLengths.generation(db) == generation {
                try built.write(db)
            } else {
                try RankingIndex.rebuild(db)
            }
        }
    }

    /// False when documents have changed since the ranking index was last built: a run of the
    /// indexer stopped before its end. Searches then ask FTS5 what matches, and the next run of
    /// the indexer rebuilds it.
    package func rankingIndexIsCurrent() throws(StoreError) -> Bool {
        try read { db in try !DocumentLengths.generation(db).hasPrefix(DocumentLengths.stalePrefix) }
    }
}
