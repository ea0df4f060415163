import Foundation
import GRDB
import XKCDModel

extension ComicDatabase.Snapshot {
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
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: """
                    SELECT d.id, CASE r.value & 3 WHEN 1 THEN d.alt WHEN 2 THEN d.transcript ELSE d.explanation END
                    FROM json_each(?) AS r JOIN searchDocument AS d ON d.id = r.value >> 2
                    """),
                arguments: ["[" + requests.map(String.init).joined(separator: ",") + "]"])
            var result: [Int: String] = [:]
            while let row = try rows.next() {
                let id: Int = row[0]
                result[id] = try row.withUnsafeData(atIndex: 1) { data in
                    (data ?? Data()).withUnsafeBytes { bytes in
                        // Text ends at a NUL, as it does for a String read from SQLite.
                        let end = bytes.baseAddress.flatMap { base in memchr(base, 0, bytes.count).map { UnsafeRawPointer($0) - base } }
                        let text = UnsafeRawBufferPointer(rebasing: bytes[..<(end ?? bytes.count)])
                        return SnippetWindow.best(in: text, matcher: matcher, length: length).render(text, marks: marks)
                    }
                }
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
    /// Per byte: whether it is part of a word, and whether a word starting with it may match
    /// (``wordByte``, ``firstByte``). Most tokens are rejected by this one lookup.
    let byteClasses: [UInt8]

    init(words: [String], stems: [String]) {
        self.words = words.map { Array($0.lowercased().utf8) }
        // A porter stem ending in "i" stands for words ending in "y" too ("lucki" for "lucky").
        var prefixes: [[UInt8]] = []
        for stem in stems where stem.utf8.count >= 3 {
            prefixes.append(Array(stem.utf8))
            if stem.hasSuffix("i") { prefixes.append(Array(stem.dropLast().utf8)) }
        }
        self.prefixes = prefixes
        var byteClasses = [UInt8](repeating: 0, count: 256)
        for byte in 0...255 where SnippetWindow.isWordByte(UInt8(byte)) { byteClasses[byte] = Self.wordByte }
        for pattern in self.words + prefixes where !pattern.isEmpty {
            for byte in 0...255 where SnippetWindow.lowered(UInt8(byte)) == pattern[0] { byteClasses[byte] |= Self.firstByte }
        }
        self.byteClasses = byteClasses
    }

    /// Bits of ``byteClasses``.
    static let wordByte: UInt8 = 1, firstByte: UInt8 = 2

    /// The index of the query word the token `text[range]` matches once ASCII letters are
    /// lowered, or nil. Prefix matches share the index space after the whole words.
    func match(_ text: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        func hasPrefix(_ pattern: [UInt8]) -> Bool {
            guard pattern.count <= range.count else { return false }
            for (offset, byte) in pattern.enumerated() where SnippetWindow.lowered(text[range.lowerBound + offset]) != byte {
                return false
            }
            return true
        }
        if let index = words.firstIndex(where: { $0.count == range.count && hasPrefix($0) }) { return index }
        if let index = prefixes.firstIndex(where: hasPrefix) { return words.count + index }
        return nil
    }

    var count: Int { words.count + prefixes.count }
}

/// The words of one field around its densest cluster of query words.
struct SnippetWindow {
    struct Token {
        var start: Int32
        var end: Int32
        /// The query word matched (see ``SnippetMatcher/match(_:_:)``), or -1.
        var match: Int32
        var isMatch: Bool { match >= 0 }
    }

    var tokens: [Token]
    var first: Int
    var last: Int
    var distinctMatches: Int

    /// Letters, digits and every non-ASCII byte make words, as FTS5's unicode61 does for letters.
    @inline(__always)
    static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 26
    }

    @inline(__always)
    static func lowered(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// - Parameter text: UTF-8 bytes.
    static func best(in text: UnsafeRawBufferPointer, matcher: SnippetMatcher, length: Int) -> SnippetWindow {
        // A token takes at least one byte and a separator, so this many always fit.
        let tokens = [Token](unsafeUninitializedCapacity: text.count / 2 + 1) { buffer, count in
            matcher.byteClasses.withUnsafeBufferPointer { classes in
                var index = 0
                while index < text.count {
                    let startClass = classes[Int(text[index])]
                    guard startClass & SnippetMatcher.wordByte != 0 else {
                        index += 1
                        continue
                    }
                    let start = index
                    index += 1
                    while index < text.count, classes[Int(text[index])] & SnippetMatcher.wordByte != 0 { index += 1 }
                    let match = startClass & SnippetMatcher.firstByte != 0 ? matcher.match(text, start..<index) ?? -1 : -1
                    buffer.initializeElement(at: count, to: Token(start: Int32(start), end: Int32(index), match: Int32(match)))
                    count += 1
                }
            }
        }
        guard !tokens.isEmpty else { return SnippetWindow(tokens: [], first: 0, last: -1, distinctMatches: 0) }
        var counts = [Int](repeating: 0, count: matcher.count)
        var distinct = 0, hits = 0
        var best = (distinct: -1, hits: -1, first: 0)
        for end in 0..<tokens.count {
            let entering = Int(tokens[end].match)
            if entering >= 0 {
                if counts[entering] == 0 { distinct += 1 }
                counts[entering] += 1
                hits += 1
            }
            let start = end - length + 1
            if start > 0, case let leaving = Int(tokens[start - 1].match), leaving >= 0 {
                counts[leaving] -= 1
                if counts[leaving] == 0 { distinct -= 1 }
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

    /// The window's words with matches between `marks`, `…` where text is cut, and each run of
    /// line breaks made one space.
    ///
    /// - Parameter text: the UTF-8 bytes `best(in:matcher:length:)` was given.
    func render(_ text: UnsafeRawBufferPointer, marks: (open: String, close: String)) -> String {
        guard first <= last else { return "" }
        let ellipsis = Array("…".utf8), open = Array(marks.open.utf8), close = Array(marks.close.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(Int(tokens[last].end - tokens[first].start) + 2 * ellipsis.count + (last - first + 1) * (open.count + close.count))
        if first > 0 { out += ellipsis }
        var cursor = Int(tokens[first].start)
        for token in tokens[first...last] {
            out += text[cursor..<Int(token.start)]
            if token.isMatch { out += open }
            out += text[Int(token.start)..<Int(token.end)]
            if token.isMatch { out += close }
            cursor = Int(token.end)
        }
        if last < tokens.count - 1 {
            out += ellipsis
        } else {
            out += text[cursor...]
        }
        return String(decoding: Self.joiningLines(out), as: UTF8.self)
    }

    /// `utf8` split at line breaks (the scalars `Character.isNewline` accepts) with empty
    /// pieces dropped, joined by single spaces.
    static func joiningLines(_ utf8: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var pendingSpace = false
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            var breakLength = 0
            switch byte {
            case 0x0A...0x0D: breakLength = 1  // LF, VT, FF, CR
            case 0xC2 where index + 1 < utf8.count && utf8[index + 1] == 0x85: breakLength = 2  // NEL
            case 0xE2 where index + 2 < utf8.count && utf8[index + 1] == 0x80 && (utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9):
                breakLength = 3  // LINE SEPARATOR, PARAGRAPH SEPARATOR
            default: break
            }
            if breakLength > 0 {
                pendingSpace = !out.isEmpty
                index += breakLength
                continue
            }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            out.append(byte)
            index += 1
        }
        return out
    }
}
