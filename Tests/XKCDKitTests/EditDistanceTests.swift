import Foundation
import GRDB
import Logging
import Testing
import XKCDIndexer
import XKCDQuery
import _XKCDTestSupport

@testable import XKCDKit
@testable import XKCDStore

@Suite("Spelling distance")
struct EditDistanceTests {
    @Test(arguments: [
        ("python", "python", 2, 0), ("pyhton", "python", 2, 1), ("pythn", "python", 2, 1), ("pythonn", "python", 2, 1),
        ("pithon", "python", 2, 1), ("ptyhno", "python", 2, 2), ("abc", "xyz", 2, 3), ("abc", "abcdef", 2, 3),
        ("", "abc", 5, 3), ("abc", "", 5, 3), ("ca", "abc", 3, 3), ("kitten", "sitting", 3, 3),
        ("kitten", "sitting", 1, 2),
    ])
    func knownDistances(_ a: String, _ b: String, _ limit: Int, _ expected: Int) {
        #expect(EditDistance.TypedWord(Array(a.utf8)).distance(to: b, limit: limit) == expected)
    }

    /// The banded computation against the whole table, on random words of a few letters (so
    /// that transpositions and repeats are common), at every limit up to past the distance.
    @Test func bandedDistancesEqualTheWholeTable() {
        var generator = SplitMix64(seed: 0x6261_6E64)  // "band"
        for _ in 0..<20_000 {
            let a = (0..<Int.random(in: 0...7, using: &generator)).map { _ in
                UInt8(ascii: "a") + .random(in: 0...3, using: &generator)
            }
            let b = (0..<Int.random(in: 0...7, using: &generator)).map { _ in
                UInt8(ascii: "a") + .random(in: 0...3, using: &generator)
            }
            let whole = Self.wholeTable(a, b)
            for limit in 0...4 {
                let expected = whole <= limit ? whole : limit + 1
                let banded = EditDistance.TypedWord(a).distance(to: String(decoding: b, as: UTF8.self), limit: limit)
                // The empty word's distance is its length, whatever the limit, as before.
                if a.isEmpty || b.isEmpty, abs(a.count - b.count) <= limit {
                    #expect(banded == whole)
                    continue
                }
                #expect(banded == expected, "\(a) \(b) limit \(limit)")
            }
        }
    }

    /// Optimal string alignment over the whole table, as written down.
    static func wholeTable(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// The letter-set test rules out only words beyond the limit: on words of the whole alphabet
    /// (with a few bytes that are no letter, which the sets leave out) and their variants by up
    /// to three random edits (so that near words are most of them).
    @Test func letterSetsRuleOutOnlyFarWords() {
        var generator = SplitMix64(seed: 0x7365_7473)  // "sets"
        let others: [UInt8] = [0x00, 0x27, 0x30, 0x39, 0x41, 0x5A, 0x60, 0x7B, 0xC3, 0xA9, 0xFF]
        func letter() -> UInt8 {
            Int.random(in: 0..<10, using: &generator) == 0
                ? others.randomElement(using: &generator)! : UInt8(ascii: "a") + .random(in: 0...25, using: &generator)
        }
        var ruledOut = 0
        for _ in 0..<20_000 {
            let a = (0..<Int.random(in: 1...8, using: &generator)).map { _ in letter() }
            var b = a
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let index = Int.random(in: 0..<max(b.count, 1), using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0 where !b.isEmpty: b.remove(at: index)
                case 1: b.insert(letter(), at: min(index, b.count))
                case 2 where !b.isEmpty: b[index] = letter()
                default: if index + 1 < b.count { b.swapAt(index, index + 1) }
                }
            }
            let distance = Self.wholeTable(a, b)
            for limit in 0...3 {
                let differs = a.withUnsafeBufferPointer { a in
                    b.withUnsafeBufferPointer { b in EditDistance.LetterCounts(a).differsInLetters(from: b, by: limit) }
                }
                if differs {
                    ruledOut += 1
                    #expect(distance > limit, "\(a) \(b) limit \(limit)")
                }
            }
        }
        // The test must rule some out, or it would hold of any code.
        #expect(ruledOut > 10_000)
    }

    /// The letter bound never exceeds the distance, so a word it rules out is beyond the limit.
    @Test(arguments: [
        ("python", "python", 0), ("pyhton", "python", 0), ("pythn", "python", 1), ("pithon", "python", 1),
        ("ptyhno", "python", 0), ("abc", "xyz", 3), ("kitten", "sitting", 3), ("a-b", "ab", 0),
        ("dependancy", "dependency", 1),
    ])
    func letterBoundIsAtMostTheDistance(_ a: String, _ b: String, _ expected: Int) {
        let bound = Array(a.utf8).withUnsafeBufferPointer { a in
            Array(b.utf8).withUnsafeBufferPointer { b in EditDistance.LetterCounts(a).bound(to: b) }
        }
        #expect(bound == expected)
        #expect(bound <= EditDistance.TypedWord(Array(a.utf8)).distance(to: b, limit: 10))
    }
}
