import FoundationEssentials
import GRDB
import XKCDModel
import XKCDSnippets

extension ComicDatabase.SearchView {
    /// Number, title and date of each comic, with a short extract of its best-matching field
    /// (title text, transcript or explanation) in which the query's words are wrapped in `marks`:
    /// a page of results, read by one statement.
    ///
    /// FTS5's own snippet() reads the whole doclist of every query phrase and scores every
    /// fragment of every column: milliseconds a result for a long query. Running the porter
    /// tokenizer over the fields shown costs nearly as much. So the field comes from the
    /// ranking postings (the one holding most query stems, the shorter on a tie), and only it
    /// is scanned, for words that are one of `words` or start with one of `stems` or
    /// `prefixes`, keeping the window of `length` words that holds the most distinct query words.
    ///
    /// - Returns: in the order of `ids`, nil for a number the `comic` table does not hold; the
    ///   snippet is empty when the comic has no searchable text (no `searchDocument` row). An
    ///   array rather than a dictionary by number, for the reason given at ``summaries(of:)``.
    package func summariesAndSnippets(
        of ids: [Comic.ID], scores: TermScores?, words: [String], prefixes: [String] = [],
        marks: (open: String, close: String), length: Int = 24
    ) throws(StoreError) -> [(summary: ComicSummary, snippet: String)?] {
        guard !ids.isEmpty else { return [] }
        let matcher = SnippetMatcher(words: words, stems: scores?.stems ?? [], prefixes: prefixes)
        // Each id travels with its field as `id * 4 + field`, so one statement reads only the
        // field shown: an explanation is kilobytes, and the other fields would be read for nothing.
        let requests = ids.map { id in
            // Fields 1...3 are alt, transcript and explanation, in searchDocument's order.
            var field = 1
            if let scores, id * RankingIndex.fieldCount + 3 < scores.fieldMatches.count {
                let matches = (1...3).map { scores.fieldMatches[id * RankingIndex.fieldCount + $0] }
                if let best = matches.max(), best > 0 { field = 1 + matches.firstIndex(of: best)! }
            }
            return id * RankingIndex.fieldCount + field
        }
        return try wrapped {
            var result = [(summary: ComicSummary, snippet: String)?](repeating: nil, count: ids.count)
            var matches: [SnippetWindow.Match] = []
            let marks = SnippetWindow.Marks(marks)
            // The summaries in the same statement: each statement run costs a search about as
            // much as reading ten rows.
            try db.cachedStatement(
                sql: """
                    SELECT r.key, c.id, c.title, c.date,
                        CASE r.value & 3 WHEN 1 THEN d.alt WHEN 2 THEN d.transcript ELSE d.explanation END
                    FROM json_each(?) AS r JOIN comic AS c ON c.id = r.value >> 2
                    LEFT JOIN searchDocument AS d ON d.id = r.value >> 2
                    """
            ).forEachRow(binding: [.text(jsonArray(requests))]) { row in
                let text = row.textBytes(4)
                let snippet = SnippetWindow.best(in: text, matcher: matcher, length: length, matches: &matches).render(
                    text, marks: marks)
                result[row.integer(0)] = (row.summary(from: 1), snippet)
            }
            return result
        }
    }
}
