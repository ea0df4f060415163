import Foundation
import GRDB
import XKCDModel

/// A comic's number, title and date: what a result line shows.
public struct ComicSummary: Sendable, Hashable, Codable {
    public var id: Comic.ID
    public var title: String
    public var date: ComicDate
}

extension ComicDatabase {
    /// Ids of the comics that satisfy `text`, ascending (see ``Snapshot/comicIDs(matching:)``).
    public func comicIDs(matching text: TextQuery) throws(StoreError) -> [Comic.ID] {
        try snapshot { snapshot throws(StoreError) in try snapshot.comicIDs(matching: text) }
    }

    /// The most frequent indexed words starting with `prefix`, to rank `prefix*` queries.
    public func commonWords(startingWith prefix: String, limit: Int) throws(StoreError) -> [String] {
        try snapshot { snapshot throws(StoreError) in try snapshot.commonWords(startingWith: prefix, limit: limit) }
    }
}

extension ComicDatabase.Snapshot {
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
        return try db.cachedStatement(sql: """
            SELECT id FROM comic WHERE id NOT IN (SELECT rowid FROM comicSearch WHERE comicSearch MATCH ?)
            ORDER BY id
            """).fetchIntegers(binding: [.text(rendered.exclusions.joined(separator: " OR "))])
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
    public func fullTextScores(matching text: TextQuery, fieldWeights: [Double]) throws(StoreError) -> [Comic.ID: Double] {
        guard let pattern = FTS5Expression(text).matchPattern else { return [:] }
        let weights = (0..<RankingIndex.fieldCount).map { "\($0 < fieldWeights.count ? fieldWeights[$0] : 1)" }
        let sql = "SELECT rowid, -bm25(comicSearch, \(weights.joined(separator: ", "))) FROM comicSearch WHERE comicSearch MATCH ?"
        return try wrapped {
            var scores: [Comic.ID: Double] = [:]
            try db.cachedStatement(sql: sql).forEachRow(binding: [.text(pattern)]) { row in
                scores[row.integer(0)] = row.double(1)
            }
            return scores
        }
    }

    /// The comics allowed by the query's number, date, favourite and tag filters, or nil when it
    /// has none (every comic is allowed).
    public func comicIDs(passingFiltersOf query: SearchQuery) throws(StoreError) -> Set<Comic.ID>? {
        try comicIDs(passingFiltersOf: query, ordered: .numberAscending).map(Set.init)
    }

    /// The comics allowed by the query's filters in `order`, or nil when it has none.
    ///
    /// One statement, its text fixed by which filters are present so that it is prepared once:
    /// ```sql
    /// SELECT id FROM comic WHERE date >= ? AND date <= ? ORDER BY date, id
    /// ```
    public func comicIDs(passingFiltersOf query: SearchQuery, ordered order: SearchSort) throws(StoreError) -> [Comic.ID]? {
        var conditions: [String] = []
        var arguments: [BoundValue] = []
        if let lower = query.numberRange?.lower {
            conditions.append("id >= ?")
            arguments.append(.integer(lower))
        }
        if let upper = query.numberRange?.upper {
            conditions.append("id <= ?")
            arguments.append(.integer(upper))
        }
        if let lower = query.dateRange?.lower {
            conditions.append("date >= ?")
            arguments.append(.text(lower.description))
        }
        if let upper = query.dateRange?.upper {
            conditions.append("date <= ?")
            arguments.append(.text(upper.description))
        }
        if query.isFavourite || !query.tags.isEmpty {
            conditions.append("id IN (SELECT comicID FROM favourite)")
        }
        for tag in query.tags {
            conditions.append("id IN (SELECT comicID FROM favouriteTag WHERE tag = ?)")
            arguments.append(.text(tag.lowercased()))
        }
        guard !conditions.isEmpty else { return nil }
        let sql = "SELECT id FROM comic WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(orderSQL(order))"
        return try wrapped { try db.cachedStatement(sql: sql).fetchIntegers(binding: arguments) }
    }

    /// Number, title and date of each of `ids`, in the same order; nil for a number the index
    /// does not hold.
    public func summaries(of ids: [Comic.ID]) throws(StoreError) -> [ComicSummary?] {
        guard !ids.isEmpty else { return [] }
        return try wrapped {
            var result = [ComicSummary?](repeating: nil, count: ids.count)
            try db.cachedStatement(sql: "SELECT r.key, c.id, c.title, c.date FROM json_each(?) AS r JOIN comic AS c ON c.id = r.value")
                .forEachRow(binding: [.text(jsonArray(ids))]) { row in
                    result[row.integer(0)] = row.summary(from: 1)
                }
            return result
        }
    }

    /// Every comic's number in `order`, for a query made only of a sort.
    public func comicIDs(ordered order: SearchSort) throws(StoreError) -> [Comic.ID] {
        try wrapped { try db.cachedStatement(sql: "SELECT id FROM comic ORDER BY \(orderSQL(order))").fetchIntegers() }
    }

    private func orderSQL(_ order: SearchSort) -> String {
        switch order {
        case .relevance, .dateAscending: "date, id"
        case .dateDescending: "date DESC, id DESC"
        case .numberAscending: "id"
        case .numberDescending: "id DESC"
        }
    }

    /// Words of the index spelled like `word`, with the number of comics holding each: those
    /// starting with its first two letters, or with its first and third (a second letter
    /// dropped, doubled or swapped), of a length within `slack`.
    ///
    /// Typos in the first two letters are rare; reading only the words of these two letters
    /// keeps a lookup to a thousand words or so instead of every word with the same first
    /// letter. Each two letters' words are one blob (``RankingIndex/writeSpellingBuckets(_:words:)``):
    /// ```sql
    /// SELECT words FROM spellingBucket WHERE prefix = ?
    /// ```
    ///
    /// - Parameters:
    ///   - minimumCount: only words held by at least this many comics.
    ///   - isNear: whether a word, as UTF-8 bytes, is near enough: a misspelling reads a thousand
    ///     words and keeps a few, and making each a String first was a tenth of its search.
    public func spellingCandidates(
        near word: String, slack: Int = 2, minimumCount: Int = 1,
        where isNear: (UnsafeRawBufferPointer) -> Bool = { _ in true }
    ) throws(StoreError) -> [(term: String, documentCount: Int)] {
        let letters = Array(word.lowercased())
        guard letters.count >= 3 else { return [] }
        let prefixes = Set([String(letters[0...1]), String([letters[0], letters[2]])])
        let length = letters.count
        return try wrapped {
            let bucket = try db.cachedStatement(sql: "SELECT words FROM spellingBucket WHERE prefix = ?")
            var candidates: [(term: String, documentCount: Int)] = []
            for prefix in prefixes {
                try bucket.forEachRow(binding: [.text(prefix)]) { row in
                    let words = row.bytes(0)
                    var offset = 0
                    while let wordLength = Varint.read(words, at: &offset), let documentCount = Varint.read(words, at: &offset),
                        wordLength <= words.count - offset
                    {
                        let word = UnsafeRawBufferPointer(rebasing: words[offset..<offset + wordLength])
                        offset += wordLength
                        guard abs(wordLength - length) <= slack, documentCount >= minimumCount, isNear(word) else { continue }
                        candidates.append((String(decoding: word, as: UTF8.self), documentCount))
                    }
                }
            }
            return candidates
        }
    }

    /// The most frequent indexed words starting with `prefix`, to rank `prefix*` queries.
    public func commonWords(startingWith prefix: String, limit: Int) throws(StoreError) -> [String] {
        let start = prefix.lowercased()
        guard let last = start.last, let next = Character.successor(of: last) else { return [] }
        let end = String(start.dropLast()) + String(next)
        return try wrapped {
            var words: [String] = []
            try db.cachedStatement(sql: """
                SELECT term FROM spellingTerm WHERE term >= ? AND term < ? ORDER BY documentCount DESC LIMIT ?
                """
            ).forEachRow(binding: [.text(start), .text(end), .integer(limit)]) { row in words.append(row.text(0)) }
            return words
        }
    }

}

extension RawRow {
    /// The summary in columns `column` to `column + 2`: a comic's id, title and date, the way the
    /// page statements select them.
    func summary(from column: Int32) -> ComicSummary {
        ComicSummary(id: integer(column), title: text(column + 1), date: ComicRecord.date(from: text(column + 2)))
    }
}

/// `ids` as a JSON array, for `json_each`: one statement whatever the count.
func jsonArray(_ ids: [Int]) -> String {
    // Digit by digit: String(Int) and joined were a tenth of reading ten result lines.
    var bytes: [UInt8] = [UInt8(ascii: "[")]
    bytes.reserveCapacity(2 + 8 * ids.count)
    var digits = InlineArray<20, UInt8>(repeating: 0)  // of one number, last first
    for (index, id) in ids.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        if id < 0 { bytes.append(UInt8(ascii: "-")) }
        var count = 0
        var rest = id.magnitude
        repeat {
            digits[count] = UInt8(ascii: "0") + UInt8(rest % 10)
            count += 1
            rest /= 10
        } while rest > 0
        while count > 0 {
            count -= 1
            bytes.append(digits[count])
        }
    }
    bytes.append(UInt8(ascii: "]"))
    return String(decoding: bytes, as: UTF8.self)
}

extension Character {
    fileprivate static func successor(of character: Character) -> Character? {
        guard let scalar = character.unicodeScalars.first, let next = Unicode.Scalar(scalar.value + 1) else { return nil }
        return Character(next)
    }
}
