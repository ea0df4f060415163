import CWordScan

/// The words of one field around its densest cluster of query words.
///
/// Explanations run to 200 kB, and a snippet used to cost most of a search while looking at
/// every word. Words are found sixteen bytes at a time (``WordBlocks``): a block's words are
/// counted by table, and only those starting with the first byte of a query word are read.
/// The window is then chosen from the query words' positions alone, and only its own words
/// are delimited.
package struct SnippetWindow {
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
    package static func isWordByte(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 26
    }

    @inline(__always)
    static func lowered(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// A query word of a text: its word number, the pattern it matches and its first byte.
    package typealias Match = (ordinal: Int, pattern: Int, start: Int)

    /// The query words of `text` in text order, into `matches` (a buffer a caller reuses from
    /// text to text, as most texts hold a few dozen), and how many words `text` holds.
    ///
    /// - Parameters:
    ///   - text: UTF-8 bytes.
    ///   - matcher: the query words to look for.
    ///   - window: when given, the scan may stop once `window` words in a row hold every query
    ///     word (every group of `matcher`) and the `window` words after them are read: no
    ///     window can hold more distinct query words, and a long explanation is mostly unread.
    ///   - matches: emptied, then given the query words found, in text order.
    /// - Returns: `isWhole` false when the scan stopped: `wordCount` is then the words read,
    ///   and the text may go on.
    package static func matches(
        in text: UnsafeRawBufferPointer, matcher: SnippetMatcher, stoppingWithin window: Int? = nil,
        into matches: inout [Match]
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
                    let offset = block.offset
                    let starts = block.starts
                    let ends = block.ends
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
                            guard
                                matcher.mayMatch(
                                    base, count: count, wordAt: start, byteClasses: byteClasses, pairs: pairs)
                            else {
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
    /// - Parameters:
    ///   - text: UTF-8 bytes.
    ///   - matcher: the query words to look for.
    ///   - length: the window's length in words; less than 1 counts as 1.
    ///   - matches: a buffer reused from text to text, left holding the query words of `text`
    ///     that were read (see ``matches(in:matcher:stoppingWithin:into:)``).
    /// - Returns: the window, to ``render(_:marks:)``; an empty one when `text` has no words.
    package static func best(
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
        var distinct = 0
        var hits = 0
        var best = (distinct: 0, hits: 0, first: 0)
        var entering = 0
        var leaving = 0
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
    package struct Marks {
        var open: [UInt8], close: [UInt8]

        package init(_ marks: (open: String, close: String)) {
            open = Array(marks.open.utf8)
            close = Array(marks.close.utf8)
        }
    }

    private static let ellipsis = Array("…".utf8)

    /// The window's words with matches between `marks`, `…` where text is cut, and each run of
    /// line breaks made one space.
    ///
    /// - Parameters:
    ///   - text: the UTF-8 bytes `best(in:matcher:length:matches:)` was given.
    ///   - marks: the bytes written before and after each query word.
    /// - Returns: the snippet; empty when the window has no words.
    package func render(_ text: UnsafeRawBufferPointer, marks: Marks) -> String {
        guard let first = words.first, let last = words.last else { return "" }
        let ellipsis = Self.ellipsis
        let open = marks.open
        let close = marks.close
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
