import Foundation
import GRDB
import XKCDModel

extension ComicDatabase {
    /// A short extract of each comic's best-matching field (title text, transcript or
    /// explanation), with the query's words wrapped in `marks`.
    ///
    /// FTS5's own snippet() reads the whole doclist of every query phrase and scores every
    /// fragment of every column: milliseconds a result for a long query. Running the porter
    /// tokenizer over the fields shown costs nearly as much. So the field comes from the
    /// ranking postings (the one holding most query stems, the shorter on a tie), and only it
    /// is scanned, for words that are one of `words` or start with one of `stems`, keeping the
    /// window of `length` words that holds the most distinct query words.
    public func snippets(
        of ids: [Comic.ID], scores: TermScores?, words: [String], marks: (open: String, close: String), length: Int = 24
    ) throws(StoreError) -> [Comic.ID: String] {
        guard !ids.isEmpty else { return [:] }
        let matcher = SnippetMatcher(words: words, stems: scores?.stems ?? [])
        return try read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, alt, transcript, explanation FROM searchDocument WHERE id IN (SELECT value FROM json_each(?))"),
                arguments: ["[" + ids.map(String.init).joined(separator: ",") + "]"])
            var result: [Int: String] = [:]
            for row in rows {
                let id: Int = row[0]
                // Columns 1...3 are alt, transcript and explanation: ranking fields 1...3.
                var column = 1
                if let scores, id * RankingIndex.fieldCount + 3 < scores.fieldMatches.count {
                    let matches = (1...3).map { scores.fieldMatches[id * RankingIndex.fieldCount + $0] }
                    if let best = matches.max(), best > 0 { column = 1 + matches.firstIndex(of: best)! }
                }
                let text: String = row[column]
                let window = SnippetWindow.best(in: text, matcher: matcher, length: length)
                result[id] = window.render(text, marks: marks)
            }
            return result
        }
    }
}

/// Decides which words of a field to highlight.
struct SnippetMatcher {
    /// Lower-case ASCII byte patterns: whole words, then prefixes (stems).
    let words: [[UInt8]]
    let prefixes: [[UInt8]]
    /// First bytes of the words and prefixes: most tokens are rejected by one lookup.
    let firstBytes: [Bool]

    init(words: [String], stems: [String]) {
        self.words = words.map { Array($0.lowercased().utf8) }
        // A porter stem ending in "i" stands for words ending in "y" too ("lucki" for "lucky").
        var prefixes: [[UInt8]] = []
        for stem in stems where stem.utf8.count >= 3 {
            prefixes.append(Array(stem.utf8))
            if stem.hasSuffix("i") { prefixes.append(Array(stem.dropLast().utf8)) }
        }
        self.prefixes = prefixes
        var firstBytes = [Bool](repeating: false, count: 256)
        for pattern in self.words + prefixes where !pattern.isEmpty { firstBytes[Int(pattern[0])] = true }
        self.firstBytes = firstBytes
    }

    /// The index of the query word `token` matches, or nil. Prefix matches share the index
    /// space after the whole words.
    func match(_ token: ArraySlice<UInt8>) -> Int? {
        guard let first = token.first, firstBytes[Int(first)] else { return nil }
        if let index = words.firstIndex(where: { $0.elementsEqual(token) }) { return index }
        if let index = prefixes.firstIndex(where: { token.count >= $0.count && token.starts(with: $0) }) {
            return words.count + index
        }
        return nil
    }

    var count: Int { words.count + prefixes.count }
}

/// The words of one field around its densest cluster of query words.
struct SnippetWindow {
    var tokens: [(start: Int, end: Int, isMatch: Bool)]
    var first: Int
    var last: Int
    var distinctMatches: Int

    static func best(in text: String, matcher: SnippetMatcher, length: Int) -> SnippetWindow {
        var tokens: [(start: Int, end: Int, isMatch: Bool)] = []
        var matched: [Int] = []
        // Letters, digits and every non-ASCII byte make words, as FTS5's unicode61 does for letters.
        func isWordByte(_ byte: UInt8) -> Bool {
            byte >= 0x80 || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
        func lowered(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        var word: [UInt8] = []
        var utf8 = text
        utf8.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                guard isWordByte(bytes[index]) else {
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
                var match: Int?
                if matcher.firstBytes[Int(lowered(bytes[start]))] {
                    word.removeAll(keepingCapacity: true)
                    for position in start..<index { word.append(lowered(bytes[position])) }
                    match = matcher.match(word[...])
                }
                tokens.append((start, index, match != nil))
                matched.append(match ?? -1)
            }
        }
        guard !tokens.isEmpty else { return SnippetWindow(tokens: [], first: 0, last: -1, distinctMatches: 0) }
        var counts = [Int](repeating: 0, count: matcher.count)
        var distinct = 0, hits = 0
        var best = (distinct: -1, hits: -1, first: 0)
        for end in 0..<tokens.count {
            if matched[end] >= 0 {
                if counts[matched[end]] == 0 { distinct += 1 }
                counts[matched[end]] += 1
                hits += 1
            }
            let start = end - length + 1
            if start > 0, matched[start - 1] >= 0 {
                counts[matched[start - 1]] -= 1
                if counts[matched[start - 1]] == 0 { distinct -= 1 }
                hits -= 1
            }
            if (distinct, hits) > (best.distinct, best.hits) {
                best = (distinct, hits, max(start, 0))
            }
        }
        // Start a little before the first match so the words have some context.
        var first = best.first
        if let firstMatch = (first..<min(first + length, tokens.count)).first(where: { tokens[$0].isMatch }) {
            first = max(0, min(firstMatch - 3, tokens.count - length))
        }
        let last = min(first + length, tokens.count) - 1
        return SnippetWindow(tokens: tokens, first: first, last: last, distinctMatches: best.distinct)
    }

    func render(_ text: String, marks: (open: String, close: String)) -> String {
        guard first <= last else { return "" }
        let utf8 = Array(text.utf8)
        var out = first > 0 ? "…" : ""
        var cursor = tokens[first].start
        for index in first...last {
            let token = tokens[index]
            out += String(decoding: utf8[cursor..<token.start], as: UTF8.self)
            let word = String(decoding: utf8[token.start..<token.end], as: UTF8.self)
            out += token.isMatch ? marks.open + word + marks.close : word
            cursor = token.end
        }
        if last < tokens.count - 1 {
            out += "…"
        } else {
            out += String(decoding: utf8[cursor...], as: UTF8.self)
        }
        return out.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
