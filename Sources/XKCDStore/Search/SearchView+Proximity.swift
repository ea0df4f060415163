import FoundationEssentials
import GRDB
import XKCDModel
import XKCDSnippets

extension ComicDatabase.SearchView {
    /// For each comic, the share of the query's neighbouring word pairs that its title, title
    /// text or transcript hold side by side, in the query's order: a remembered line ("someone is
    /// wrong on the internet") holds its words in the order the comic says them, which the
    /// bag-of-words scores cannot see.
    ///
    /// Explanations are left out: they run to 200 kB and quote every comic they link to.
    ///
    /// Only fields holding two or more of the query's stems (``TermScores/fieldMatches``) are
    /// read: most hold one or none, and a transcript runs to kilobytes.
    ///
    /// - Parameters:
    ///   - ids: the comics to score; a number the index does not hold gets 0.
    ///   - words: the query's words in the order typed; each is split into tokens as
    ///     the index splits text (letters and digits), so "don't" is the pair "don" "t".
    ///   - scores: the query's term scores, whose ``TermScores/fieldMatches`` choose the fields
    ///     read.
    /// - Returns: the shares, from 0 to 1, in the order of `ids`; all 0 when the query has fewer
    ///   than two tokens.
    /// - Throws: a ``StoreError`` when the index cannot be read.
    package func adjacentPairShares(of ids: [Comic.ID], words: [String], scores: TermScores) throws(StoreError)
        -> [Double]
    {
        let tokens = words.flatMap { word in
            word.lowercased().utf8.split { !SnippetWindow.isWordByte($0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        var shares = [Double](repeating: 0, count: ids.count)
        // Each comic travels with its field as `id * 4 + field`, as in snippets; `owners` gives
        // the comic's place in `ids` by the request's.
        var requests: [Int] = []
        var owners: [Int] = []
        for (index, id) in ids.enumerated() {
            for field in 0..<3
            where id * RankingIndex.fieldCount + field < scores.fieldMatches.count
                && scores.fieldMatches[id * RankingIndex.fieldCount + field] >= 2
            {
                requests.append(id * RankingIndex.fieldCount + field)
                owners.append(index)
            }
        }
        guard tokens.count >= 2, !requests.isEmpty else { return shares }
        let matcher = SnippetMatcher(words: tokens, stems: [])
        return try wrapped {
            var found = [[Bool]](repeating: [], count: ids.count)
            var matches: [SnippetWindow.Match] = []
            try db.cachedStatement(
                sql: """
                    SELECT r.key, CASE r.value & 3 WHEN 0 THEN d.title WHEN 1 THEN d.alt ELSE d.transcript END
                    FROM json_each(?) AS r JOIN searchDocument AS d ON d.id = r.value >> 2
                    """
            ).forEachRow(binding: [.text(jsonArray(requests))]) { row in
                let index = owners[row.integer(0)]
                if found[index].isEmpty { found[index] = [Bool](repeating: false, count: tokens.count - 1) }
                Self.findAdjacentPairs(
                    in: row.bytes(1), matcher: matcher, tokens: tokens, into: &found[index], matches: &matches)
            }
            for index in ids.indices where !found[index].isEmpty {
                shares[index] = Double(found[index].filter { $0 }.count) / Double(tokens.count - 1)
            }
            return shares
        }
    }

    /// Marks `found[i]` when `tokens[i]` and `tokens[i + 1]` follow each other in `text`.
    private static func findAdjacentPairs(
        in text: UnsafeRawBufferPointer, matcher: SnippetMatcher, tokens: [String], into found: inout [Bool],
        matches: inout [SnippetWindow.Match]
    ) {
        _ = SnippetWindow.matches(in: text, matcher: matcher, into: &matches)
        // A repeated query token matches as its first place only; the pair is found by its words.
        for (previous, current) in zip(matches, matches.dropFirst()) where current.ordinal == previous.ordinal + 1 {
            for position in found.indices
            where !found[position]
                && tokens[position] == tokens[previous.pattern] && tokens[position + 1] == tokens[current.pattern]
            {
                found[position] = true
            }
        }
    }
}
