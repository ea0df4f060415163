/// Spelling distance for typo correction.
enum EditDistance {
    /// The letters a to z of a word, counted once to be compared with many words.
    struct LetterCounts {
        private var counts = InlineArray<26, Int32>(repeating: 0)
        private var total = 0
        /// Bit `i` for each letter `a + i` the word holds.
        private var letterSet: UInt32 = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            for byte in bytes where byte &- UInt8(ascii: "a") < 26 {
                counts[Int(byte &- UInt8(ascii: "a"))] &+= 1
                letterSet |= 1 << UInt32(byte &- UInt8(ascii: "a"))
                total += 1
            }
        }

        private static func letterSet(of bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
            var set: UInt32 = 0
            for byte in bytes {
                let letter = UInt32(truncatingIfNeeded: byte &- UInt8(ascii: "a"))
                set |= letter < 26 ? 1 << letter : 0
            }
            return set
        }

        /// Whether more than `limit` of the letters a to z that `b` holds are missing from the
        /// counted word, or more than `limit` of the word's are missing from `b`: an edit brings
        /// at most one letter into a word's set and takes at most one out (a transposition
        /// neither), so the distance is then over `limit`. A test without a branch per byte,
        /// which most spelling candidates fail before ``bound(to:)`` is computed.
        func differsInLetters(from b: UnsafeBufferPointer<UInt8>, by limit: Int) -> Bool {
            let other = Self.letterSet(of: b)
            return (other & ~letterSet).nonzeroBitCount > limit || (letterSet & ~other).nonzeroBitCount > limit
        }

        /// Half the difference between the counts of the letters a to z in the counted word and
        /// in `b`, rounded up: a lower bound of the distance, as an edit changes at most two
        /// counts by one (a transposition none). It costs a fraction of the distance, and most
        /// spelling candidates already exceed the limit by it.
        func bound(to b: UnsafeBufferPointer<UInt8>) -> Int {
            // A letter of `b` the counted word still has left cancels one of them; any other
            // is one `b` has more of. What is left uncancelled is what the word has more of.
            var left = counts
            var uncancelled = total
            var extra = 0
            for byte in b where byte &- UInt8(ascii: "a") < 26 {
                let letter = Int(byte &- UInt8(ascii: "a"))
                if left[letter] > 0 { uncancelled -= 1 } else { extra += 1 }
                left[letter] &-= 1
            }
            return (uncancelled + extra + 1) / 2
        }
    }

    /// A typed word compared with many indexed words: a typo is checked against a thousand.
    struct TypedWord {
        let bytes: [UInt8]
        let letters: LetterCounts

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            letters = bytes.withUnsafeBufferPointer(LetterCounts.init)
        }

        /// The distance to `word`'s UTF-8 bytes.
        func distance(to word: some StringProtocol, limit: Int) -> Int {
            if let distance = word.utf8.withContiguousStorageIfAvailable({ distance(to: $0, limit: limit) }) {
                return distance
            }
            return Array(word.utf8).withUnsafeBufferPointer { distance(to: $0, limit: limit) }
        }

        /// The distance to the UTF-8 bytes of a word as spelling candidates are read: no
        /// String is made of the many that are not near.
        func distance(to b: UnsafeRawBufferPointer, limit: Int) -> Int {
            b.withMemoryRebound(to: UInt8.self) { distance(to: $0, limit: limit) }
        }

        /// The optimal string alignment distance (insertions, deletions, substitutions and
        /// adjacent transpositions) to `b`: exact when it is at most `limit`, else `limit + 1`.
        func distance(to b: UnsafeBufferPointer<UInt8>, limit: Int) -> Int {
            let limit = max(limit, 0)
            if abs(bytes.count - b.count) > limit { return limit + 1 }
            if bytes.isEmpty || b.isEmpty { return max(bytes.count, b.count) }
            if letters.differsInLetters(from: b, by: limit) || letters.bound(to: b) > limit { return limit + 1 }
            return bytes.withUnsafeBufferPointer { EditDistance.banded($0, b, limit: limit) }
        }
    }

    /// The distance within `limit`, computed only for cells at most `limit` off the diagonal:
    /// an alignment costing at most `limit` never leaves that band (a transposition moves
    /// along it), and outside it every cell is taken as `limit + 1`.
    private static func banded(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, limit: Int) -> Int {
        let width = b.count + 2
        let beyond = limit + 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: width * 3) { rows in
            // Three rows in one buffer: two back, one back, current. A row's cells right of its
            // band are never written (an earlier row's band ended further left), so they keep
            // `beyond` for the next row's band edge to read.
            rows.initialize(repeating: beyond)
            for j in 0...min(b.count, limit) { rows[width + j] = j }
            var twoBack = 0
            var oneBack = width
            var current = 2 * width
            for i in 1...a.count {
                let first = max(1, i - limit)
                let last = min(b.count, i + limit)
                // Left of the band: column 0 is `i` deletions, inside the band or not.
                rows[current + first - 1] = first == 1 ? min(i, beyond) : beyond
                var rowMinimum = rows[current + first - 1]
                if first <= last {
                    for j in first...last {
                        let cost = a[i - 1] == b[j - 1] ? 0 : 1
                        var value = min(rows[oneBack + j] + 1, rows[current + j - 1] + 1, rows[oneBack + j - 1] + cost)
                        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                            value = min(value, rows[twoBack + j - 2] + 1)
                        }
                        value = min(value, beyond)
                        rows[current + j] = value
                        rowMinimum = min(rowMinimum, value)
                    }
                }
                if rowMinimum > limit { return beyond }
                (twoBack, oneBack, current) = (oneBack, current, twoBack)
            }
            return rows[oneBack + b.count]
        }
    }
}

/// The nearest spelling among a few words, for "did you mean" hints outside the index (a
/// mistyped command name).
public enum Spelling: Sendable {
    /// The word of `candidates` nearest to `word` within `limit` edits once lower-cased (so a
    /// word in capitals is near its own spelling), the first of equals; nil when none is that
    /// near, or when `word` is one of them.
    ///
    /// - Parameters:
    ///   - word: the word as typed.
    ///   - candidates: the words it may have meant, such as the command names.
    ///   - limit: the most edits (insertions, deletions, substitutions, transpositions) allowed.
    /// - Returns: the nearest candidate, or nil.
    public static func nearest(to word: String, among candidates: [String], within limit: Int = 2) -> String? {
        guard !candidates.contains(word) else { return nil }
        let typed = EditDistance.TypedWord(Array(word.lowercased().utf8))
        var best: (word: String, distance: Int)?
        for candidate in candidates {
            let distance = typed.distance(to: candidate, limit: limit)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.word
    }
}
