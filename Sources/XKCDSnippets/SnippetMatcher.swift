import CWordScan

/// Decides which words of a field to highlight.
package struct SnippetMatcher {
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

    /// - Parameters:
    ///   - words: the query's words, matched whole in either case; the same word twice is one
    ///     query word.
    ///   - stems: the query's stems, each matching the words it begins and one query word with
    ///     them; a stem shorter than three bytes matches nothing.
    ///   - prefixes: the query's `prefix*` words: every word starting so is one query
    ///     word, whichever of them the ranking looked up.
    package init(words: [String], stems: [String], prefixes: [String] = []) {
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
                word.starts(with: stem.pattern)
                    || (stem.pattern.last == UInt8(ascii: "e") && word.starts(with: stem.pattern.dropLast()))
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
            (patterns[a][0], a < wordCount ? 0 : 1, -patterns[a].count, a) < (
                patterns[b][0], b < wordCount ? 0 : 1, -patterns[b].count, b
            )
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
        var firstLetters: [UInt8] = []
        var otherFirstBytes: [UInt8] = []
        for index in bucketed {
            let byte = patterns[index][0]
            guard SnippetWindow.lowered(byte) == byte, byte != firstLetters.last, byte != otherFirstBytes.last else {
                continue
            }
            if byte &- UInt8(ascii: "a") < 26 {
                firstLetters.append(byte)
            } else {
                otherFirstBytes.append(byte)
            }
        }
        checksEveryStart = firstLetters.count + otherFirstBytes.count > 8
        var firstBytes = XKCDFirstBytes()
        if !checksEveryStart {
            withUnsafeMutableBytes(of: &firstBytes.letters) {
                $0.copyBytes(from: firstLetters.flatMap { repeatElement($0, count: 16) })
            }
            withUnsafeMutableBytes(of: &firstBytes.others) {
                $0.copyBytes(from: otherFirstBytes.flatMap { repeatElement($0, count: 16) })
            }
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
                        let start = starts[index]
                        let length = starts[index + 1] - start
                        guard index < wordCount ? length == range.count : length <= range.count else { continue }
                        var offset = 0
                        while offset < length,
                            SnippetWindow.lowered(text[range.lowerBound + offset]) == patterns[start + offset]
                        {
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
