import FoundationEssentials
import GRDB
import XKCDModel

extension ComicDatabase.SearchView {
    /// Ids of the comics that satisfy `text` exactly as the query language defines it: every
    /// word (stemmed), phrases, prefixes, field scopes, OR and exclusions; ascending.
    ///
    /// ```sql
    /// SELECT rowid FROM comicSearch WHERE comicSearch MATCH '("bobby") AND (title : "tables")'
    /// ```
    /// An exclusion-only query (`-physics`) matches every comic except those excluded.
    ///
    /// Read from the ranking postings where they can tell (``comicIDsFromPostings(matching:)``),
    /// else from FTS5 (``comicIDsFromFullText(matching:)``).
    ///
    /// An array, not a set, for the reason given at ``summaries(of:)``.
    public func comicIDs(matching text: TextQuery) throws(StoreError) -> [Comic.ID] {
        try wrapped {
            if let matched = try comicIDsFromPostings(matching: text) { return matched }
            return try comicIDsFromFullText(matching: text)
        }
    }

    /// ``comicIDs(matching:)`` as FTS5 finds them.
    func comicIDsFromFullText(matching text: TextQuery) throws -> [Comic.ID] {
        let rendered = FTS5Expression(text)
        if let pattern = rendered.matchPattern {
            return try db.cachedStatement(sql: "SELECT rowid FROM comicSearch WHERE comicSearch MATCH ? ORDER BY rowid")
                .fetchIntegers(binding: [.text(pattern)])
        }
        guard !rendered.exclusions.isEmpty else { return [] }
        return try db.cachedStatement(
            sql: """
                SELECT id FROM comic WHERE id NOT IN (SELECT rowid FROM comicSearch WHERE comicSearch MATCH ?)
                ORDER BY id
                """
        ).fetchIntegers(binding: [.text(rendered.exclusions.joined(separator: " OR "))])
    }

    /// FTS5's `bm25()` scores of the comics matching `text`, negated so that higher is better,
    /// weighing title, title text, transcript and explanation by `fieldWeights` (numbers of
    /// ours, not user text); empty for a query of exclusions only.
    ///
    /// What ranks words while the ranking index is behind the documents (a run of the indexer
    /// was killed before rebuilding it): its postings lack the comics stored since.
    /// ```sql
    /// SELECT rowid, -bm25(comicSearch, 6, 3, 1.5, 1) FROM comicSearch WHERE comicSearch MATCH ?
    /// ```
    package func fullTextScores(matching text: TextQuery, fieldWeights: [Double]) throws(StoreError) -> [Comic.ID:
        Double]
    {
        guard let pattern = FTS5Expression(text).matchPattern else { return [:] }
        let weights = (0..<RankingIndex.fieldCount).map { "\($0 < fieldWeights.count ? fieldWeights[$0] : 1)" }
        let sql =
            "SELECT rowid, -bm25(comicSearch, \(weights.joined(separator: ", "))) FROM comicSearch WHERE comicSearch MATCH ?"
        return try wrapped {
            var scores: [Comic.ID: Double] = [:]
            try db.cachedStatement(sql: sql).forEachRow(binding: [.text(pattern)]) { row in
                scores[row.integer(0)] = row.double(1)
            }
            return scores
        }
    }
}
