import CWordScan
import Foundation
import Testing
import XKCDModel

@testable import XKCDSnippets

@Suite struct SnippetWindowTests {
    private func snippet(_ text: String, words: [String], stems: [String] = [], length: Int = 8) -> String {
        let bytes = Array(text.utf8)
        var matches: [SnippetWindow.Match] = []
        return bytes.withUnsafeBytes {
            SnippetWindow.best(
                in: $0, matcher: SnippetMatcher(words: words, stems: stems), length: length, matches: &matches
            )
            .render($0, marks: .init(("[", "]")))
        }
    }

    private func filler(_ count: Int) -> String {
        (0..<count).map { "w\($0)" }.joined(separator: " ")
    }

    /// A word and the words its stem begins are one query word: a window holding "dependency"
    /// and "dependencies" holds one, and loses to the window holding both query words.
    @Test func formsOfOneWordCountOnce() {
        let text = "Dependency here and dependencies there. \(filler(20)) a dependency in Nebraska"
        let result = snippet(text, words: ["dependency", "nebraska"], stems: ["depend", "nebraska"])
        #expect(result == "…w16 w17 w18 w19 a [dependency] in [Nebraska]")
    }

    /// Once a window holds every query word, the scan stops a window's length later: the
    /// snippet is that window, cut after, though a later window holds the words more often.
    @Test func firstWindowHoldingEveryWordIsTaken() {
        let text = "alpha beta \(filler(40)) alpha beta alpha beta"
        #expect(snippet(text, words: ["alpha", "beta"]) == "[alpha] [beta] w0 w1 w2 w3 w4 w5…")
    }

    /// With a query word missing from the text, the whole text is weighed and the window with
    /// the most query words wins.
    @Test func withoutEveryWordTheDensestWindowWins() {
        let text = "alpha \(filler(40)) alpha alpha"
        #expect(snippet(text, words: ["alpha", "gamma"]) == "…w34 w35 w36 w37 w38 w39 [alpha] [alpha]")
    }

    /// A window ending where the scan stopped still ends the snippet: the rest of the field is
    /// left out (it once came whole, to 200 kB of explanation).
    @Test func aSnippetEndsAtItsWindowWhereTheScanStopped() {
        for fillers in [(20, 300), (16, 4), (13, 7)] {
            let text =
                "prime colors" + String(repeating: " f", count: fillers.0)
                + " prime colors prime colors prime colors" + String(repeating: " g", count: fillers.1) + " END"
            let result = snippet(text, words: ["prime", "colors"], length: 24)
            #expect(result.hasSuffix("…"), "\(fillers)")
            #expect(!result.contains("END") && result.split(separator: " ").count <= 24, "\(fillers): \(result)")
        }
    }

    /// Porter adds an "e" to some stems: "hoping" and "hope" are one query word.
    @Test func aStemWithAnAddedEStillGroupsItsWord() {
        #expect(SnippetMatcher(words: ["hoping"], stems: ["hope"]).groupCount == 1)
        #expect(SnippetMatcher(words: ["making", "tables"], stems: ["make", "tabl"]).groupCount == 2)
    }

    /// A word counts for the longest query stem it starts with.
    @Test func aWordIsOfTheLongestStemItStartsWith() {
        let matcher = SnippetMatcher(words: ["new", "newton"], stems: ["new", "newton"])
        let word = Array("Newtonian".utf8)
        let pattern = word.withUnsafeBytes { matcher.match($0, 0..<word.count) }
        #expect(pattern.map { matcher.groups[$0] } == matcher.groups[1])
    }

    @Test func scanStopsOnlyAfterTheWindowFollowingAFullWindow() {
        let text = Array("alpha beta \(filler(40)) alpha".utf8)
        let matcher = SnippetMatcher(words: ["alpha", "beta"], stems: [])
        var matches: [SnippetWindow.Match] = []
        let stopped = text.withUnsafeBytes {
            SnippetWindow.matches(in: $0, matcher: matcher, stoppingWithin: 8, into: &matches)
        }
        #expect(!stopped.isWhole)
        #expect(stopped.wordCount > 9 && stopped.wordCount < 43)
        #expect(matches.map(\.ordinal) == [0, 1])
        let whole = text.withUnsafeBytes { SnippetWindow.matches(in: $0, matcher: matcher, into: &matches) }
        #expect(whole.isWhole && whole.wordCount == 43)
        #expect(matches.map(\.ordinal) == [0, 1, 42])
    }

    @Test func stemsShorterThanThreeBytesAreNoQueryWord() {
        let matcher = SnippetMatcher(words: ["is", "lucky"], stems: ["is", "lucki"])
        // "is" stands alone; "lucky", "lucki" and "luck" are one word.
        #expect(matcher.groupCount == 2)
        #expect(Set(matcher.groups).count == 2)
    }

    /// The window is found from its first query word's byte, not by counting words from the
    /// start: on random texts its words must still be consecutive words of the text, as many as
    /// asked for (or all), marked where they are query words.
    @Test func windowsAreRunsOfTheTextsWords() {
        var random = SplitMix64(seed: 0x7769_6E64)  // "wind"
        let pieces = [
            "alpha", "Beta", "gam", "gamma", "x", "42", "é", "naïve", "😀", " ", "  ", ", ", "\n", "-", "…", "'",
            "\u{2028}",
        ]
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...60, using: &random)).map { _ in pieces.randomElement(using: &random)! }
                .joined()
            let bytes = Array(text.utf8)
            var words: [Range<Int>] = []
            var index = 0
            while index < bytes.count {
                guard SnippetWindow.isWordByte(bytes[index]) else {
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count, SnippetWindow.isWordByte(bytes[index]) { index += 1 }
                words.append(start..<index)
            }
            let query = ["alpha", "gamma", "x", "naïve", "42"].filter { _ in Bool.random(using: &random) }
            let length = Int.random(in: 1...10, using: &random)
            var matches: [SnippetWindow.Match] = []
            let window = bytes.withUnsafeBytes {
                SnippetWindow.best(
                    in: $0, matcher: SnippetMatcher(words: query, stems: []), length: length, matches: &matches)
            }
            let ranges = window.words.map(\.range)
            guard let first = ranges.first else {
                #expect(words.isEmpty, "\(text.debugDescription)")
                continue
            }
            let start = words.firstIndex(of: first)
            #expect(start != nil, "\(text.debugDescription)")
            guard let start else { continue }
            #expect(Array(words[start..<min(start + ranges.count, words.count)]) == ranges, "\(text.debugDescription)")
            #expect(ranges.count == min(length, words.count), "\(text.debugDescription)")
            for word in window.words {
                let typed = String(decoding: bytes[word.range], as: UTF8.self).lowercased()
                #expect(word.isMatch == query.contains(typed), "\(text.debugDescription) \(typed)")
            }
        }
    }

    /// The SSE2 classification of sixteen bytes against the byte-at-a-time one, and both against
    /// the matcher's own rules: which bytes make words, and which may start a query word.
    @Test func sixteenBytesAtOnceClassifyAsOneByteAtATime() {
        var random = SplitMix64(seed: 0x7373_6532)  // "sse2"
        let interesting = Array("aAzZmM09@[`{/:_- \n".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xE2, 0xFF]
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8) + [0xC3, 0xE2]
        for _ in 0..<5_000 {
            let words = (0..<Int.random(in: 1...10, using: &random)).map { _ in
                String(
                    decoding: (0..<Int.random(in: 1...5, using: &random)).map { _ in
                        alphabet.randomElement(using: &random)!
                    }, as: UTF8.self)
            }
            let matcher = SnippetMatcher(words: words, stems: [])
            var first = matcher.firstBytes
            let block = (0..<16).map { _ in
                Bool.random(using: &random)
                    ? interesting.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            let fast = block.withUnsafeBufferPointer { xkcd_classify16($0.baseAddress!, &first) }
            let slow = block.withUnsafeBufferPointer { xkcd_classify16_portable($0.baseAddress!, &first) }
            #expect(fast.words == slow.words && fast.firsts == slow.firsts, "\(block) \(words)")
            for (index, byte) in block.enumerated() {
                #expect((fast.words >> index & 1 == 1) == SnippetWindow.isWordByte(byte))
                let startsPattern = matcher.byteClasses[Int(byte)] & SnippetMatcher.firstByte != 0
                #expect(
                    (fast.firsts >> index & 1 == 1) == (startsPattern && !matcher.checksEveryStart), "\(byte) \(words)")
            }
            let count = Int32.random(in: 1...15, using: &random)
            let tail = block.withUnsafeBufferPointer { xkcd_classify_tail($0.baseAddress!, count, &first) }
            #expect(
                tail.words == fast.words & (1 << UInt32(count) - 1)
                    && tail.firsts == fast.firsts & (1 << UInt32(count) - 1))
        }
        for mask in UInt32(0)...0xFFFF { #expect(Int(xkcd_count16(mask)) == mask.nonzeroBitCount) }
    }

    /// The scan sixteen bytes at a time against one written byte by byte, on random texts
    /// (words across the blocks' edges, bytes from 0x80, lengths that are no multiple of 16)
    /// and queries of one to twelve words (past eight first bytes every word start is read):
    /// the same query words at the same places, the same word count, and the same stop.
    @Test func theScanFindsWhatAByteByByteScanFinds() {
        var random = SplitMix64(seed: 0x7363_616E)  // "scan"
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFXYZ0123456789".utf8) + [0xC3, 0xA9, 0xE2]
        let separators = Array("  ,.-'\n".utf8) + [0x00, 0x7F]
        var matches: [SnippetWindow.Match] = []
        for _ in 0..<4_000 {
            // Texts made of a few words, the query of some of them, so that query words are
            // frequent and scans stop; now and then bytes of any kind in between.
            let vocabulary = (0..<Int.random(in: 2...14, using: &random)).map { _ in
                (0..<Int.random(in: 1...5, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            }
            let words = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                String(decoding: vocabulary.randomElement(using: &random)!, as: UTF8.self).lowercased()
            }
            let matcher = SnippetMatcher(words: words, stems: [])
            var text: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &random) {
                text +=
                    Int.random(in: 0..<8, using: &random) == 0
                    ? [alphabet.randomElement(using: &random)!] : vocabulary.randomElement(using: &random)!
                text += (0..<Int.random(in: 1...2, using: &random)).map { _ in separators.randomElement(using: &random)!
                }
            }
            let window = Bool.random(using: &random) ? nil : Int.random(in: 1...10, using: &random)
            let scanned = text.withUnsafeBytes {
                SnippetWindow.matches(in: $0, matcher: matcher, stoppingWithin: window, into: &matches)
            }
            let expected = Self.matchesByteByByte(text, matcher: matcher, window: window)
            #expect(
                matches.map { [$0.ordinal, $0.pattern, $0.start] } == expected.matches,
                "\(text) \(words) \(String(describing: window))")
            #expect(scanned.wordCount == expected.wordCount && scanned.isWhole == expected.isWhole, "\(text) \(words)")
        }
    }

    /// ``SnippetWindow/matches(in:matcher:stoppingWithin:into:)`` as its comment states it: every
    /// word start the matcher takes, and the stop checked after every eight bytes of the text.
    private static func matchesByteByByte(
        _ text: [UInt8], matcher: SnippetMatcher, window: Int?
    ) -> (matches: [[Int]], wordCount: Int, isWhole: Bool) {
        text.withUnsafeBytes { bytes in
            var matches: [[Int]] = []
            var lastSeen = [Int](
                repeating: .min, count: window != nil && matcher.groupCount <= 8 ? matcher.groupCount : 0)
            var stopAfter = Int.max
            var wordCount = 0
            for blockStart in stride(from: 0, to: bytes.count, by: 8) {
                for start in blockStart..<min(blockStart + 8, bytes.count)
                where SnippetWindow.isWordByte(bytes[start])
                    && (start == 0 || !SnippetWindow.isWordByte(bytes[start - 1]))
                {
                    defer { wordCount += 1 }
                    var end = start
                    while end < bytes.count, SnippetWindow.isWordByte(bytes[end]) { end += 1 }
                    guard matcher.mayMatch(bytes, wordAt: start), let pattern = matcher.match(bytes, start..<end) else {
                        continue
                    }
                    matches.append([wordCount, pattern, start])
                    if let window, !lastSeen.isEmpty, stopAfter == .max {
                        lastSeen[matcher.groups[pattern]] = wordCount
                        if lastSeen.allSatisfy({ $0 > wordCount - window }) { stopAfter = wordCount + window }
                    }
                }
                if wordCount > stopAfter { return (matches, wordCount, false) }
            }
            return (matches, wordCount, true)
        }
    }

    /// Line breaks around and between query words fold to single spaces, with the marks in
    /// place, however the text is cut into pieces at the query words.
    @Test func lineBreaksBesideQueryWordsFold() {
        #expect(
            snippet("one\ntwo alpha\r\n\nbeta\u{B}three", words: ["alpha", "beta"]) == "one two [alpha] [beta] three")
        #expect(snippet("\n\nalpha\n", words: ["alpha"]) == "[alpha]")
        // Spaces beside a break stay, as LineFoldingWriter's rule says.
        #expect(snippet("alpha\u{C}beta \u{2028} gamma", words: ["alpha", "beta"]) == "[alpha] [beta]   gamma")
    }

    /// Line breaks are folded on bytes; the rule is that of the scalars: split at each line
    /// break, drop empty pieces, join with single spaces.
    @Test func lineBreaksFoldAsTheScalarRuleSays() {
        let breaks: Set<Unicode.Scalar> = ["\n", "\u{B}", "\u{C}", "\r", "\u{85}", "\u{2028}", "\u{2029}"]
        func reference(_ text: String) -> String {
            text.unicodeScalars.split { breaks.contains($0) }.map { String(String.UnicodeScalarView($0)) }.joined(
                separator: " ")
        }
        var random = SplitMix64(seed: 0x6A6F_696E)  // "join"
        let scalars: [Unicode.Scalar] = [
            "a", " ", "\n", "\r", "\u{B}", "\u{C}", "\u{E}", "\u{85}", "\u{84}", "\u{A0}", "\u{2028}", "\u{2029}",
            "\u{2027}",
            "\u{202A}", "…", "€", "é", "😀",
        ]
        for _ in 0..<5_000 {
            var view = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &random) { view.append(scalars.randomElement(using: &random)!) }
            let text = String(view)
            let utf8 = Array(text.utf8)
            let folded = String(
                decoding: [UInt8](unsafeUninitializedCapacity: max(utf8.count, 1)) { buffer, count in
                    var writer = LineFoldingWriter(buffer.baseAddress!)
                    utf8.withUnsafeBufferPointer { writer.write($0) }
                    count = writer.count
                }, as: UTF8.self)
            #expect(folded == reference(text), "\(text.debugDescription)")
        }
    }
}

extension SnippetMatcher {
    /// The scan's first-two-bytes test for one word, its tables taken for the one call.
    func mayMatch(_ text: UnsafeRawBufferPointer, wordAt start: Int) -> Bool {
        byteClasses.withUnsafeBufferPointer { byteClasses in
            pairs.withUnsafeBufferPointer { pairs in
                mayMatch(
                    text.baseAddress!.assumingMemoryBound(to: UInt8.self), count: text.count, wordAt: start,
                    byteClasses: byteClasses, pairs: pairs)
            }
        }
    }
}
