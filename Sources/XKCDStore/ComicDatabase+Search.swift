import Foundation
import GRDB
import XKCDModel

/// One comic found by a search.
public struct SearchHit: Sendable, Hashable, Codable {
    public var id: Comic.ID
    public var title: String
    public var date: ComicDate
    public var score: Double
    public var snippet: String
}

extension ComicDatabase {
    /// Comics containing every one of `words`, best first by bm25 with title-heavy weights.
    ///
    /// ```sql
    /// SELECT … FROM comicSearch JOIN comic ON comic.id = comicSearch.rowid
    /// WHERE comicSearch MATCH '"nebraska" "dependency"' ORDER BY bm25(comicSearch, 10, 5, 2, 1)
    /// ```
    public func comics(matchingAllOf words: [String], limit: Int) throws(StoreError) -> [SearchHit] {
        let pattern = words.map(FTS5Literal.quoted).joined(separator: " ")
        guard !pattern.isEmpty else { return [] }
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT comic.id, comic.title, comic.date, bm25(comicSearch, 10.0, 5.0, 2.0, 1.0) AS score
                FROM comicSearch JOIN comic ON comic.id = comicSearch.rowid
                WHERE comicSearch MATCH ?
                ORDER BY score LIMIT ?
                """, arguments: [pattern, limit]
            ).map { row in
                SearchHit(
                    id: row["id"], title: row["title"],
                    date: ComicDate(iso: row["date"]) ?? ComicDate(year: 1970, month: 1, day: 1),
                    score: -(row["score"] as Double), snippet: "")
            }
        }
    }
}

/// The one way user text becomes part of an FTS5 expression: as a string literal.
enum FTS5Literal {
    /// `say "hi"` becomes `"say ""hi"""`; FTS5 reads everything inside as plain tokens.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
