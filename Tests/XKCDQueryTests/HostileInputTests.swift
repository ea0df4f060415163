import Testing
import XKCDModel
import _XKCDTestSupport

@testable import XKCDQuery

@Suite struct HostileInputTests {
    let parser = QueryParser()

    static let alphabet: [String] = [
        "\"", "\u{201C}", "\u{201D}", "(", ")", "*", "^", ":", "-", "#", ".", "..", "|", " ", " ", " ", "\t", "\n",
        "\u{0}", "\u{7}", "\u{1B}", "\r\n", "0", "3", "9", "2010", "-02", "-30", "a", "b", "x", "OR", "NEAR", "AND",
        "title:", "alt:", "num:", "year:", "date:", "before:", "after:", "is:", "is:fav", "tag:", "sort:", "-date",
        "😀", "🐈‍⬛", "👍🏽", "\u{301}", "\u{20DD}", "e\u{301}", "\u{200D}", "\u{FEFF}", "ß", "İ", "'", "&", "%", "+",
    ]

    @Test func randomHostileStringsNeverCrash() {
        var random = SplitMix64(seed: 0x5EED)
        var parsed = 0
        var failed = 0
        for _ in 0..<10_000 {
            let length = Int.random(in: 0...24, using: &random)
            let input = (0..<length).map { _ in Self.alphabet.randomElement(using: &random)! }.joined()
            do {
                let query = try parser.parse(input)
                parsed += 1
                // The canonical form is itself valid and stable.
                let canonical = query.description
                let again = try parser.parse(canonical)
                #expect(again.description == canonical, "input \(input.debugDescription)")
            } catch {
                failed += 1
                let message = error.description
                #expect(!message.isEmpty && !message.contains(where: \.isNewline), "input \(input.debugDescription)")
                #expect(error.column >= 1 && error.column <= max(1, input.count), "input \(input.debugDescription)")
            }
        }
        #expect(parsed > 1_000 && failed > 1_000, "parsed \(parsed), failed \(failed)")
    }

    /// The time limit only guards against a parse that is not linear: that would take hours on a
    /// megabyte, where a linear one takes about a second even on a loaded machine.
    @Test(.timeLimit(.minutes(3))) func oneMegabyteQueryParsesQuickly() throws {
        // No prefix (`mom*`): a query takes at most 10 (the next test).
        let chunk = #"bobby "little tables" (sql OR db) -drop title:mom c++ e-mail "#
        let input = String(repeating: chunk, count: 1_048_576 / chunk.utf8.count + 1)
        let query = try parser.parse(input)
        #expect(query.text?.positiveTerms.count ?? 0 > 100_000)
    }

    /// Each prefix is looked up among all the index's words: a query of hundreds would hold a
    /// core for seconds, so past ``QueryParser/maximumPrefixes`` the query is refused, at the
    /// first prefix too many.
    @Test func aQueryTakesAFewPrefixes() throws {
        let ten = (0..<QueryParser.maximumPrefixes).map { "w\($0)*" }.joined(separator: " ")
        #expect(try parser.parse(ten).text != nil)
        #expect(throws: QueryError.tooManyPrefixes(column: ten.count + 2)) { try parser.parse(ten + " x*") }
        #expect(throws: QueryError.tooManyPrefixes(column: 31)) {
            try parser.parse(String(repeating: "a* ", count: 200))
        }
        #expect(
            QueryError.tooManyPrefixes(column: 34).description
                == "too many prefixes (word*) at column 34: a query takes at most 10")
    }

    @Test func oneMegabyteWordAndUnclosedQuote() throws {
        let word = String(repeating: "x", count: 1_048_576)
        #expect(try parser.parse(word).text == term(word))
        #expect(throws: QueryError.unclosedQuote(column: 2)) { try parser.parse("a\"" + word) }
        let stars = try parser.parse(String(repeating: "*", count: 100_000))
        #expect(stars.text == term(String(repeating: "*", count: 100_000)))
    }

    @Test(arguments: [
        String(repeating: "(", count: 100_000),
        String(repeating: "(", count: 100_000) + String(repeating: ")", count: 100_000),
        String(repeating: "-(", count: 100_000) + "a",
        String(repeating: "title:(", count: 100_000),
    ])
    func deepNestingIsAnError(_ input: String) {
        let error = #expect(throws: QueryError.self) { try parser.parse(input) }
        guard case .tooDeeplyNested? = error else {
            Issue.record("expected too deeply nested, got \(String(describing: error))")
            return
        }
    }

    @Test func longFlatQueriesDoNotRecurse() throws {
        let ors = try parser.parse(Array(repeating: "a", count: 100_000).joined(separator: " OR "))
        guard case .or(let operands)? = ors.text else {
            Issue.record("expected an OR")
            return
        }
        #expect(operands.count == 100_000)
        let nots = try parser.parse(String(repeating: "-a ", count: 100_000))
        #expect(nots.text?.isExclusionOnly == true)
        #expect(try parser.parse(String(repeating: "- ", count: 100_000)).text?.positiveTerms.count == 100_000)
        #expect(try parser.parse(String(repeating: "OR ", count: 100_000)).text != nil)
        #expect(try parser.parse(String(repeating: "()", count: 100_000)).isEmpty)
        #expect(try parser.parse(String(repeating: "(a) ", count: 100_000)).text?.positiveTerms.count == 100_000)
    }
}
