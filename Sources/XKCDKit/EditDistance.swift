/// Spelling distance for typo correction.
enum EditDistance {
    /// Optimal string alignment distance (insertions, deletions, substitutions and adjacent
    /// transpositions) between two byte strings, giving up once it must exceed `limit`.
    static func damerauLevenshtein(_ a: [UInt8], _ b: some StringProtocol, limit: Int) -> Int {
        a.withUnsafeBufferPointer { a in
            if let distance = b.utf8.withContiguousStorageIfAvailable({ damerauLevenshtein(a, $0, limit: limit) }) {
                return distance
            }
            return Array(b.utf8).withUnsafeBufferPointer { damerauLevenshtein(a, $0, limit: limit) }
        }
    }

    /// The same against UTF-8 bytes, as spelling candidates are read: no String is made of the
    /// many that are not near.
    static func damerauLevenshtein(_ a: [UInt8], _ b: UnsafeRawBufferPointer, limit: Int) -> Int {
        a.withUnsafeBufferPointer { a in
            b.withMemoryRebound(to: UInt8.self) { damerauLevenshtein(a, $0, limit: limit) }
        }
    }

    /// The same over raw bytes, its three rows on the stack: a typo is checked against hundreds
    /// of words.
    static func damerauLevenshtein(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        if letterBound(a, b) > limit { return limit + 1 }
        let width = b.count + 1
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: width * 3) { rows in
            // Three rows in one buffer: two back, one back, current.
            rows.initialize(repeating: 0)
            for j in 0...b.count { rows[width + j] = j }
            var twoBack = 0, oneBack = width, current = 2 * width
            for i in 1...a.count {
                rows[current] = i
                var rowMinimum = i
                for j in 1...b.count {
                    let cost = a[i - 1] == b[j - 1] ? 0 : 1
                    var value = min(rows[oneBack + j] + 1, rows[current + j - 1] + 1, rows[oneBack + j - 1] + cost)
                    if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                        value = min(value, rows[twoBack + j - 2] + 1)
                    }
                    rows[current + j] = value
                    rowMinimum = min(rowMinimum, value)
                }
                if rowMinimum > limit { return limit + 1 }
                (twoBack, oneBack, current) = (oneBack, current, twoBack)
            }
            return rows[oneBack + b.count]
        }
    }

    /// Half the difference between the counts of the letters a to z in `a` and in `b`, rounded
    /// up: a lower bound of the distance, as an edit changes at most two counts by one (a
    /// transposition none). It costs a fraction of the distance, and most spelling candidates
    /// already exceed the limit by it.
    static func letterBound(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        // Counts on the stack: a typo checks a thousand words this way. The letters `b` has
        // more of are counted as met, then those `a` has more of.
        var counts = InlineArray<26, Int>(repeating: 0)
        var difference = 0
        for byte in a where byte &- UInt8(ascii: "a") < 26 { counts[Int(byte &- UInt8(ascii: "a"))] += 1 }
        for byte in b where byte &- UInt8(ascii: "a") < 26 {
            let letter = Int(byte &- UInt8(ascii: "a"))
            // A letter `a` has more of cancels one of them; past that, `b` has one more.
            if counts[letter] <= 0 { difference += 1 }
            counts[letter] -= 1
        }
        for letter in 0..<26 where counts[letter] > 0 { difference += counts[letter] }
        return (difference + 1) / 2
    }
}
