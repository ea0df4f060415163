import Foundation
import CWordScan
import GRDB
import XKCDModel

extension ComicDatabase.Snapshot {
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
    public func summariesAndSnippets(
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
            try db.cachedStatement(sql: """
                SELECT r.key, c.id, c.title, c.date,
                    CASE r.value & 3 WHEN 1 THEN d.alt WHEN 2 THEN d.transcript ELSE d.explanation END
                FROM json_each(?) AS r JOIN comic AS c ON c.id = r.value >> 2
                LEFT JOIN searchDocument AS d ON d.id = r.value >> 2
                """
            ).forEachRow(binding: [.text(jsonArray(requests))]) { row in
                let text = row.textBytes(4)
                let snippet = SnippetWindow.best(in: text, matcher: matcher, length: length, matches: &matches).render(text, marks: marks)
                result[row.integer(0)] = (row.summary(from: 1), snippet)
            }
            return result
        }
    }
}

/// Decides which words of a field to highlight.
struct SnippetMatcher {
    /// Lower-case byte patterns end to end: whole words, then prefixes (stems). Pattern `i`
    /// spans `patterns[starts[i]..<starts[i + 1]]`; the first `wordCount` must equal a token,
    /// the others begin one.
    let patterns: [UInt8]
    let starts: [Int]
    let wordCount: Int
    /// Per byte: whether it is part of a word, and whether a word starting with it may match
    /// (``wordByte``, ``firstByte``). Most tokens are rejected by this one lookup.
    let byteClasses: [UInt8]
    /// The patterns starting with byte `b` are `bucketed[bucketStarts[b]..<bucketStarts[b + 1]]`,
    /// in the order they are tried: a long query has dozens of patterns.
    let bucketed: [Int], bucketStarts: [Int]
    /// The lower-case first bytes of the patterns, for `xkcd_classify16`: letters, which match
    /// either case, and the others, which match as they are.
    let firstBytes: XKCDFirstBytes
    /// Whether the patterns start with more than eight distinct bytes: every word start is then
    /// read, which costs less than comparing each block with them all.
    let checksEveryStart: Bool
    /// A bit per pair of first two bytes, lowered, that a matching word may start with (the
    /// second 0 for a word of one byte), by ``pair(_:_:)``: a long query's patterns start with
    /// most letters, and this rejects nearly every other word before its end is looked for.
    let pairs: [UInt64]
    /// The query word each pattern stands for, `0..<groupCount`: a stem, its form without a
    /// final "i", and the words it begins are one query word ("dependency" and "depend").
    let groups: [Int]
    let groupCount: Int

    /// - Parameter prefixes: the query's `prefix*` words: every word starting so is one query
    ///   word, whichever of them the ranking looked up.
    init(words: [String], stems: [String], prefixes: [String] = []) {
        var patterns = words.map { Array($0.lowercased().utf8) }
        wordCount = patterns.count
        var stemPatterns: [(pattern: [UInt8], group: Int)] = []
        // A porter stem ending in "i" stands for words ending in "y" too ("lucki" for "lucky").
        for (group, stem) in stems.enumerated() where stem.utf8.count >= 3 {
            stemPatterns.append((Array(stem.utf8), group))
            if stem.hasSuffix("i") { stemPatterns.append((Array(stem.dropLast().utf8), group)) }
        }
        let prefixPatterns = prefixes.map { Array($0.lowercased().utf8) }.filter { !$0.isEmpty }
        // A stem or word a prefix begins belongs to the prefix's query word.
        for index in stemPatterns.indices {
            if let prefix = prefixPatterns.firstIndex(where: { stemPatterns[index].pattern.starts(with: $0) }) {
                stemPatterns[index].group = stems.count + prefix
            }
        }
        stemPatterns += prefixPatterns.enumerated().map { ($1, stems.count + $0) }
        var groups: [Int] = []
        var groupCount = stems.count + prefixPatterns.count
        for (index, word) in patterns.enumerated() {
            // Porter adds an "e" to some stems ("hoping" is "hope"): a word starting with the
            // stem without it is of the stem's query word too.
            let stemsBeginning = stemPatterns.filter { stem in
                word.starts(with: stem.pattern) || (stem.pattern.last == UInt8(ascii: "e") && word.starts(with: stem.pattern.dropLast()))
            }
            if let prefix = prefixPatterns.firstIndex(where: { word.starts(with: $0) }) {
                groups.append(stems.count + prefix)
            } else if let stem = stemsBeginning.max(by: { $0.pattern.count < $1.pattern.count }) {
                groups.append(stem.group)
            } else if let same = patterns[..<index].firstIndex(of: word) {
                groups.append(groups[same])
            } else {
                groups.append(groupCount)
                groupCount += 1
            }
        }
        patterns += stemPatterns.map(\.pattern)
        groups += stemPatterns.map(\.group)
        // Stems no pattern stands for (shorter than three bytes) are no query word of a field.
        var renumbered = [Int](repeating: -1, count: groupCount)
        for group in groups { renumbered[group] = 0 }
        var used = 0
        for group in renumbered.indices where renumbered[group] == 0 {
            renumbered[group] = used
            used += 1
        }
        self.groups = groups.map { renumbered[$0] }
        self.groupCount = used
        self.patterns = patterns.flatMap { $0 }
        var starts = [0]
        starts.reserveCapacity(patterns.count + 1)
        for pattern in patterns { starts.append(starts[starts.count - 1] + pattern.count) }
        self.starts = starts
        var byteClasses = Self.wordByteClasses
        var pairs = [UInt64](repeating: 0, count: 1 << 4)
        for pattern in patterns where !pattern.isEmpty {
            // The bytes that lower to a pattern's first byte: itself, and its upper case.
            if SnippetWindow.lowered(pattern[0]) == pattern[0] {
                byteClasses[Int(pattern[0])] |= Self.firstByte
                if pattern[0] &- UInt8(ascii: "a") < 26 { byteClasses[Int(pattern[0] - 0x20)] |= Self.firstByte }
            }
            let pair = Self.pair(pattern[0], pattern.count > 1 ? pattern[1] : 0)
            pairs[pair >> 6] |= 1 << UInt64(pair & 63)
        }
        self.byteClasses = byteClasses
        self.pairs = pairs
        // By first byte; within one, whole words first, then the longest prefix: "Newtonian" is
        // of "newton", not "new". One sort of the patterns, not one per byte.
        let wordCount = self.wordCount
        let bucketed = patterns.indices.filter { !patterns[$0].isEmpty }.sorted { a, b in
            (patterns[a][0], a < wordCount ? 0 : 1, -patterns[a].count, a) < (patterns[b][0], b < wordCount ? 0 : 1, -patterns[b].count, b)
        }
        self.bucketed = bucketed
        var bucketStarts = [Int](repeating: bucketed.count, count: 257)
        // Through a buffer: a loop over every byte value on an array checks its uniqueness on
        // each write, which was most of a matcher's making.
        bucketStarts.withUnsafeMutableBufferPointer { starts in
            for (position, index) in bucketed.enumerated().reversed() { starts[Int(patterns[index][0])] = position }
            for byte in stride(from: 255, through: 0, by: -1) { starts[byte] = min(starts[byte], starts[byte + 1]) }
        }
        self.bucketStarts = bucketStarts
        // The distinct first bytes, in byte order as `bucketed` is.
        var firstLetters: [UInt8] = [], otherFirstBytes: [UInt8] = []
        for index in bucketed {
            let byte = patterns[index][0]
            guard SnippetWindow.lowered(byte) == byte, byte != firstLetters.last, byte != otherFirstBytes.last else { continue }
            if byte &- UInt8(ascii: "a") < 26 {
                firstLetters.append(byte)
            } else {
                otherFirstBytes.append(byte)
            }
        }
        checksEveryStart = firstLetters.count + otherFirstBytes.count > 8
        var firstBytes = XKCDFirstBytes()
        if !checksEveryStart {
            withUnsafeMutableBytes(of: &firstBytes.letters) { $0.copyBytes(from: firstLetters.flatMap { repeatElement($0, count: 16) }) }
            withUnsafeMutableBytes(of: &firstBytes.others) { $0.copyBytes(from: otherFirstBytes.flatMap { repeatElement($0, count: 16) }) }
            firstBytes.letterCount = Int32(firstLetters.count)
            firstBytes.otherCount = Int32(otherFirstBytes.count)
        }
        self.firstBytes = firstBytes
    }

    /// ``byteClasses`` before any pattern: the word bytes.
    private static let wordByteClasses = (0...255).map { SnippetWindow.isWordByte(UInt8($0)) ? wordByte : 0 }

    /// Ten bits of a pair, the low five of each byte: a filter may let a few words too many
    /// through to ``match(_:_:)``, and 128 bytes are cleared per matcher instead of 8 kB.
    private static func pair(_ first: UInt8, _ second: UInt8) -> Int { Int(first & 0x1F) << 5 | Int(second & 0x1F) }

    /// Whether a pattern may match the word starting at `start`, from its first two bytes.
    ///
    /// `byteClasses` and `pairs` are this matcher's ``byteClasses`` and ``pairs``, taken as
    /// buffers once for a whole scan.
    @inline(__always)
    func mayMatch(
        _ text: UnsafePointer<UInt8>, count: Int, wordAt start: Int, byteClasses: UnsafeBufferPointer<UInt8>,
        pairs: UnsafeBufferPointer<UInt64>
    ) -> Bool {
        guard byteClasses[Int(text[start])] & Self.firstByte != 0 else { return false }
        let next = start + 1
        let second = next < count && SnippetWindow.isWordByte(text[next]) ? SnippetWindow.lowered(text[next]) : 0
        let pair = Self.pair(SnippetWindow.lowered(text[start]), second)
        return pairs[pair >> 6] & (1 << UInt64(pair & 63)) != 0
    }

    /// Bits of ``byteClasses``.
    static let wordByte: UInt8 = 1, firstByte: UInt8 = 2

    /// The index of the first pattern the token `text[range]` matches once ASCII letters are
    /// lowered, or nil.
    func match(_ text: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        // Only patterns starting with the word's first byte can match it: no prefix is empty.
        let first = Int(SnippetWindow.lowered(text[range.lowerBound]))
        var position = bucketStarts[first]
        let end = bucketStarts[first + 1]
        // Through buffers rather than a slice of `bucketed`: a long query tries most words of a
        // text, and bounds-checked slices made that scan measurably slower.
        return patterns.withUnsafeBufferPointer { patterns in
            bucketed.withUnsafeBufferPointer { bucketed in
                starts.withUnsafeBufferPointer { starts in
                    while position < end {
                        let index = bucketed[position]
                        position += 1
                        let start = starts[index], length = starts[index + 1] - start
                        guard index < wordCount ? length == range.count : length <= range.count else { continue }
                        var offset = 0
                        while offset < length, SnippetWindow.lowered(text[range.lowerBound + offset]) == patterns[start + offset] {
                            offset += 1
                        }
                        if offset == length { return index }
                    }
                    return nil
                }
            }
        }
    }

}

/// The words of one field around its densest cluster of query words.
///
/// Explanations run to 200 kB, and a snippet used to cost most of a search while looking at
/// every word. Words are found sixteen bytes at a time (``WordBlocks``): a block's words are
/// counted by table, and only those starting with the first byte of a query word are read.
/// The window is then chosen from the query words' positions alone, and only its own words
/// are delimited.
struct SnippetWindow {
    /// The window's words: their bytes in the text and whether each is a query word.
    var words: [Word]
    /// A word of the window: its bytes in the text, and whether it is a query word. A struct,
    /// not a tuple of a range, for the reason given at ``SnippetMatcher/starts``.
    struct Word {
        var start: Int, end: Int
        var isMatch: Bool
        var range: Range<Int> { start..<end }
    }

    /// Whether words before or after the window are left out.
    var isCutBefore = false, isCutAfter = false

    /// Letters, digits and every non-ASCII byte make words, as FTS5's unicode61 does for letters.
    @inline(__always)
    static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 26
    }

    @inline(__always)
    static func lowered(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// A query word of a text: its word number, the pattern it matches and its first byte.
    typealias Match = (ordinal: Int, pattern: Int, start: Int)

    /// The query words of `text` in text order, into `matches` (a buffer a caller reuses from
    /// text to text, as most texts hold a few dozen), and how many words `text` holds.
    ///
    /// - Parameters:
    ///   - text: UTF-8 bytes.
    ///   - window: when given, the scan may stop once `window` words in a row hold every query
    ///     word (every group of `matcher`) and the `window` words after them are read: no
    ///     window can hold more distinct query words, and a long explanation is mostly unread.
    /// - Returns: `isWhole` false when the scan stopped: `wordCount` is then the words read,
    ///   and the text may go on.
    static func matches(
        in text: UnsafeRawBufferPointer, matcher: SnippetMatcher, stoppingWithin window: Int? = nil, into matches: inout [Match]
    ) -> (wordCount: Int, isWhole: Bool) {
        matches.removeAll(keepingCapacity: true)
        guard let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (0, true) }
        let count = text.count
        var wordCount = 0
        let checksEveryStart = matcher.checksEveryStart
        // Where each query word was last seen, while no window holding all of them is found;
        // past a handful of words such a window is rare and the check not worth its cost.
        var lastSeen = [Int](repeating: .min, count: window != nil && matcher.groupCount <= 8 ? matcher.groupCount : 0)
        var stopAfter = Int.max
        var isWhole = true
        // The matcher's tables through buffers taken once: a long query's scan reads most words
        // of a text.
        matcher.byteClasses.withUnsafeBufferPointer { byteClasses in
        matcher.pairs.withUnsafeBufferPointer { pairs in
            var blocks = WordBlocks(text, firstBytes: matcher.firstBytes)
            scan: while let block = blocks.next() {
                let offset = block.offset, starts = block.starts, ends = block.ends
                // Starts of words whose first byte, lowered, begins a pattern.
                let candidates = checksEveryStart ? starts : starts & block.firsts
                let blockStart = wordCount
                // Most blocks hold no candidate, and most scans never stop.
                if candidates == 0, stopAfter == .max {
                    wordCount += Int(xkcd_count16(starts))
                    continue
                }
                // Eight bytes at a time, as the stop is checked: a scan stops after the same word
                // whatever the block size.
                var half: UInt32 = 0x00FF
                while half != 0 {
                    defer { half = half == 0x00FF ? 0xFF00 : 0 }
                    var halfCandidates = candidates & half
                    while halfCandidates != 0 {
                        let bit = halfCandidates.trailingZeroBitCount
                        halfCandidates &= halfCandidates &- 1
                        let start = offset + bit
                        guard matcher.mayMatch(base, count: count, wordAt: start, byteClasses: byteClasses, pairs: pairs) else {
                            continue
                        }
                        var end: Int
                        if case let endsAfter = ends & ~((1 << UInt32(bit)) &- 1), endsAfter != 0 {
                            end = offset + endsAfter.trailingZeroBitCount
                        } else {
                            end = min(offset + WordBlocks.size, count)
                            while end < count, isWordByte(base[end]) { end += 1 }
                        }
                        if let pattern = matcher.match(text, start..<end) {
                            let ordinal = blockStart + Int(xkcd_count16(starts & ((1 << UInt32(bit)) &- 1)))
                            matches.append((ordinal, pattern, start))
                            if let window, !lastSeen.isEmpty, stopAfter == .max {
                                lastSeen[matcher.groups[pattern]] = ordinal
                                if lastSeen.allSatisfy({ $0 > ordinal - window }) { stopAfter = ordinal + window }
                            }
                        }
                    }
                    wordCount = blockStart + Int(xkcd_count16(starts & (half | 0x00FF)))
                    if wordCount > stopAfter {
                        isWhole = false
                        break scan
                    }
                }
            }
        }
        }
        return (wordCount, isWhole)
    }

    /// The window of `length` words holding the most distinct query words, then the most
    /// query words, the earliest such (of those up to `length` words past the first window
    /// holding all of them, when one does); moved to start three words before its first query word
    /// when the text goes on long enough.
    ///
    /// - Parameter text: UTF-8 bytes.
    static func best(
        in text: UnsafeRawBufferPointer, matcher: SnippetMatcher, length: Int, matches: inout [Match]
    ) -> SnippetWindow {
        let length = max(length, 1)
        let (scanned, isWhole) = self.matches(in: text, matcher: matcher, stoppingWithin: length, into: &matches)
        // After a stop the last word read may run on past what was read, and more may follow:
        // windows end before it, so that the snippet is cut after the window.
        let wordCount = isWhole ? scanned : scanned - 1
        guard wordCount > 0 else { return SnippetWindow(words: []) }

        // Sliding the window one word at a time, its counts change only where a query word
        // enters (window ending on it) or leaves (ending `length` words after it), and a better
        // window can only begin where one enters; so only those ends are visited.
        var counts = [Int](repeating: 0, count: matcher.groupCount)
        var distinct = 0, hits = 0
        var best = (distinct: 0, hits: 0, first: 0)
        var entering = 0, leaving = 0
        while entering < matches.count || leaving < matches.count {
            let enterEnd = entering < matches.count ? matches[entering].ordinal : .max
            let leaveEnd = leaving < matches.count ? matches[leaving].ordinal + length : .max
            let end = min(enterEnd, leaveEnd)
            guard end < wordCount else { break }
            if enterEnd == end {
                let group = matcher.groups[matches[entering].pattern]
                if counts[group] == 0 { distinct += 1 }
                counts[group] += 1
                hits += 1
                entering += 1
            }
            if leaveEnd == end {
                let group = matcher.groups[matches[leaving].pattern]
                counts[group] -= 1
                if counts[group] == 0 { distinct -= 1 }
                hits -= 1
                leaving += 1
            }
            if (distinct, hits) > (best.distinct, best.hits) {
                best = (distinct, hits, max(end - length + 1, 0))
            }
        }
        // Start a little before the first match so the words have some context.
        var first = best.first
        if let firstMatch = matches.first(where: { $0.ordinal >= first })?.ordinal, firstMatch < first + length {
            first = max(0, min(firstMatch - 3, wordCount - length))
        }
        let last = min(first + length, wordCount) - 1

        var ordinal = 0  // of the next word to start
        var origin = 0  // the byte of word `ordinal`
        // From the window's first query word, found by its byte, back to the window's first
        // word: counting the words from the text's start again was a fifth of a long scan.
        if let anchor = matches.first(where: { $0.ordinal >= first }) {
            var start = anchor.start
            var back = anchor.ordinal - first
            while back > 0, let previous = wordStart(before: start, in: text) {
                start = previous
                back -= 1
            }
            if back == 0 { (ordinal, origin) = (first, start) }
        }
        // The window's words, word `first` first.
        var words: [Word] = []
        words.reserveCapacity(last - first + 1)
        var open: Int?  // start of a window word whose end is yet to come
        var blocks = WordBlocks(text, from: origin)
        window: while let block = blocks.next() {
            let starts = block.starts
            guard open != nil || ordinal + Int(xkcd_count16(starts)) > first else {
                ordinal += Int(xkcd_count16(starts))
                continue
            }
            var boundaries = starts | block.ends
            while boundaries != 0 {
                let bit = boundaries.trailingZeroBitCount
                boundaries &= boundaries &- 1
                if starts & (1 << UInt32(bit)) != 0 {
                    if ordinal >= first { open = block.offset + bit }
                    ordinal += 1
                } else {
                    if let start = open {
                        words.append(Word(start: start, end: block.offset + bit, isMatch: false))
                        open = nil
                    }
                    if ordinal > last { break window }
                }
            }
        }
        if let start = open { words.append(Word(start: start, end: text.count, isMatch: false)) }
        var nextMatch = 0
        for index in words.indices {
            while nextMatch < matches.count, matches[nextMatch].ordinal < first + index { nextMatch += 1 }
            words[index].isMatch = nextMatch < matches.count && matches[nextMatch].ordinal == first + index
        }
        return SnippetWindow(words: words, isCutBefore: first > 0, isCutAfter: last < scanned - 1)
    }

    /// Where the word before the one starting at `start` starts, or nil when none does.
    private static func wordStart(before start: Int, in text: UnsafeRawBufferPointer) -> Int? {
        var index = start - 1
        while index >= 0, !isWordByte(text[index]) { index -= 1 }
        guard index >= 0 else { return nil }
        while index > 0, isWordByte(text[index - 1]) { index -= 1 }
        return index
    }

    /// The bytes of the marks around a query word, made once for all of a page's snippets.
    struct Marks {
        var open: [UInt8], close: [UInt8]

        init(_ marks: (open: String, close: String)) {
            open = Array(marks.open.utf8)
            close = Array(marks.close.utf8)
        }
    }

    private static let ellipsis = Array("…".utf8)

    /// The window's words with matches between `marks`, `…` where text is cut, and each run of
    /// line breaks made one space.
    ///
    /// - Parameter text: the UTF-8 bytes `best(in:matcher:length:matches:)` was given.
    func render(_ text: UnsafeRawBufferPointer, marks: Marks) -> String {
        guard let first = words.first, let last = words.last else { return "" }
        let ellipsis = Self.ellipsis, open = marks.open, close = marks.close
        let matchCount = words.count { $0.isMatch }
        let tail = isCutAfter ? last.end : text.count
        // Folding line breaks never lengthens the text.
        let capacity = tail - first.start + 2 * ellipsis.count + matchCount * (open.count + close.count)
        let out = [UInt8](unsafeUninitializedCapacity: max(capacity, 1)) { buffer, count in
            text.withMemoryRebound(to: UInt8.self) { bytes in
                var writer = LineFoldingWriter(buffer.baseAddress!)
                if isCutBefore { ellipsis.withUnsafeBufferPointer { writer.write($0) } }
                // The text runs on unchanged from one query word to the next.
                var cursor = first.start
                for word in words where word.isMatch {
                    writer.write(UnsafeBufferPointer(rebasing: bytes[cursor..<word.start]))
                    open.withUnsafeBufferPointer { writer.write($0) }
                    writer.write(UnsafeBufferPointer(rebasing: bytes[word.range]))
                    close.withUnsafeBufferPointer { writer.write($0) }
                    cursor = word.end
                }
                writer.write(UnsafeBufferPointer(rebasing: bytes[cursor..<tail]))
                if isCutAfter { ellipsis.withUnsafeBufferPointer { writer.write($0) } }
                count = writer.count
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Copies bytes to memory, splitting them at line breaks (the scalars `Character.isNewline`
/// accepts), dropping empty pieces and joining the rest with single spaces, so that the
/// destination needs no more room than the bytes written.
///
/// A piece written must not end inside a line break: the window's pieces are cut at word
/// boundaries, and a multi-byte break is made of word bytes.
struct LineFoldingWriter {
    private let destination: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var pendingSpace = false

    init(_ destination: UnsafeMutablePointer<UInt8>) { self.destination = destination }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        var runStart = 0  // of the bytes not yet copied, none of them a line break
        var index = 0
        while index < bytes.count {
            // Eight bytes at a time while none of them may begin a line break.
            if bytes.count - index >= 8,
                !Self.mayBeginLineBreak(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = bytes[index]
            // Most bytes are none of the three that begin a line break.
            guard byte &- 0x0A < 4 || byte == 0xC2 || byte == 0xE2 else {
                index += 1
                continue
            }
            var breakLength = 0
            switch byte {
            case 0x0A...0x0D: breakLength = 1  // LF, VT, FF, CR
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0x85: breakLength = 2  // NEL
            case 0xE2 where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                breakLength = 3  // LINE SEPARATOR, PARAGRAPH SEPARATOR
            default: break
            }
            guard breakLength > 0 else {
                index += 1
                continue
            }
            copy(bytes, runStart..<index)
            pendingSpace = count > 0
            index += breakLength
            runStart = index
        }
        copy(bytes, runStart..<bytes.count)
    }

    /// Whether a byte of `block` is one a line break begins with: 0x0A to 0x0D, 0xC2 or 0xE2.
    @inline(__always)
    private static func mayBeginLineBreak(_ block: UInt64) -> Bool {
        let evened = block & ~ones(0x01)  // 0x0B and 0x0D as 0x0A and 0x0C
        let controls = zeroBytes(evened ^ ones(0x0A)) | zeroBytes(evened ^ ones(0x0C))
        let leads = zeroBytes((block & ~ones(0x20)) ^ ones(0xC2))  // 0xE2 as 0xC2
        return controls | leads != 0
    }

    /// `byte` in every byte of a 64-bit block.
    @inline(__always)
    private static func ones(_ byte: UInt64) -> UInt64 { byte &* 0x0101_0101_0101_0101 }

    /// The zero bytes of `block`, at bit 7 of each.
    @inline(__always)
    private static func zeroBytes(_ block: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((block & low) &+ low) | block | low)
    }

    private mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard !range.isEmpty, let base = bytes.baseAddress else { return }
        if pendingSpace {
            destination[count] = 0x20
            count += 1
            pendingSpace = false
        }
        (destination + count).update(from: base + range.lowerBound, count: range.count)
        count += range.count
    }
}

/// A text sixteen bytes at a time (`xkcd_classify16`), with the starts and ends of its words.
///
/// Bit `i` of a block's masks says something of the block's byte `i`: it begins a word
/// (``SnippetWindow/isWordByte(_:)``), is the first byte after one, or may begin a query word
/// (`XKCDFirstBytes`). An iterator rather than a method taking a closure: a scan's counters
/// captured by a closure lived in memory, and a long query's scan reads most words of a text.
struct WordBlocks {
    static let size = 16

    /// A block: the offset of its first byte and its masks.
    struct Block {
        var offset: Int
        var starts: UInt32, ends: UInt32, firsts: UInt32
    }

    private let base: UnsafePointer<UInt8>?
    private let count: Int
    private var firstBytes: XKCDFirstBytes
    /// The offset of the next block.
    private var offset: Int
    /// Whether the byte before the next block is a word byte, at bit 0.
    private var previous: UInt32

    /// The blocks of `text` from byte `start`, `firstBytes` marked in their `firsts`.
    init(_ text: UnsafeRawBufferPointer, from start: Int = 0, firstBytes: XKCDFirstBytes = XKCDFirstBytes()) {
        base = text.baseAddress?.assumingMemoryBound(to: UInt8.self)
        count = text.count
        self.firstBytes = firstBytes
        offset = start
        previous = start > 0 && start <= text.count && SnippetWindow.isWordByte(text[start - 1]) ? 1 : 0
    }

    /// The next block, or nil past the end. Bytes past the end of the text read as zero, which
    /// is no word byte, so a word ending there ends in the last block, unless the last block is
    /// full.
    @inline(__always)
    mutating func next() -> Block? {
        guard let base, offset < count else { return nil }
        let remaining = count - offset
        let masks = remaining >= Self.size
            ? xkcd_classify16(base + offset, &firstBytes)
            : xkcd_classify_tail(base + offset, Int32(remaining), &firstBytes)
        let before = (masks.words << 1 | previous) & 0xFFFF
        previous = masks.words >> 15
        defer { offset += Self.size }
        return Block(offset: offset, starts: masks.words & ~before, ends: before & ~masks.words, firsts: masks.firsts)
    }
}
