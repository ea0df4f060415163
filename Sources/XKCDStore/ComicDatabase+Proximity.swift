import Foundation
import GRDB
import XKCDModel

extension ComicDatabase.Snapshot {
    /// For each comic, the share of the query's neighbouring word pairs that its title, title
    /// text or transcript hold side by side, in the query's order: a remembered line ("someone is
    /// wrong on the internet") holds its words in the order the comic says them, which the
    /// bag-of-words scores cannot see.
    ///
    /// Explanations are left out: they run to 200 kB and quote every comic they link to.
    ///
    /// - Parameter words: the query's words in the order typed; each is split into tokens as
    ///   the index splits text (letters and digits), so "don't" is the pair "don" "t".
    /// - Returns: the shares, from 0 to 1, in the order of `ids`.
    public func adjacentPairShares(of ids: [Comic.ID], words: [String]) throws(StoreError) -> [Double] {
        let tokens = words.flatMap { word in
            word.lowercased().utf8.split { !SnippetWindow.isWordByte($0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        guard tokens.count >= 2, !ids.isEmpty else { return [Double](repeating: 0, count: ids.count) }
        let matcher = SnippetMatcher(words: tokens, stems: [])
        return try wrapped {
            var shares = [Double](repeating: 0, count: ids.count)
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT r.key, d.title || char(10) || d.alt || char(10) || d.transcript
                    FROM json_each(?) AS r JOIN searchDocument AS d ON d.id = r.value
                    """),
                arguments: [jsonArray(ids)])
            while let row = try rows.next() {
                let index: Int = row[0]
                let pairs = try row.withUnsafeData(atIndex: 1) { data in
                    (data ?? Data()).withUnsafeBytes { Self.adjacentPairs(in: $0, matcher: matcher, tokens: tokens) }
                }
                shares[index] = Double(pairs) / Double(tokens.count - 1)
            }
            return shares
        }
    }

    /// The distinct pairs `tokens[i]`, `tokens[i + 1]` that follow each other in `text`.
    private static func adjacentPairs(in text: UnsafeRawBufferPointer, matcher: SnippetMatcher, tokens: [String]) -> Int {
        var found = [Bool](repeating: false, count: tokens.count)
        var previous: Int?
        var offset = 0
        while offset < text.count {
            guard SnippetWindow.isWordByte(text[offset]) else {
                offset += 1
                continue
            }
            let start = offset
            while offset < text.count, SnippetWindow.isWordByte(text[offset]) { offset += 1 }
            // A repeated query token matches its first place only; a pair may still follow it.
            let current = matcher.match(text, start..<offset)
            if let previous, let current {
                for position in tokens.indices.dropLast() where !found[position]
                    && tokens[position] == tokens[previous] && tokens[position + 1] == tokens[current]
                {
                    found[position] = true
                }
            }
            previous = current
        }
        return found.filter { $0 }.count
    }
}
