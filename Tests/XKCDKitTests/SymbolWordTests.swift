import Foundation
import Testing
import XKCDKit
import XKCDStore
import _XKCDTestSupport

/// Words written with symbols (`c++`, `node.js`) are words: kept whole in the ranking index and
/// searched whole, on an index of the real fixture comics.
@Suite("Words with symbols")
struct SymbolWordTests {
    private static let index = Task { try await makeFixtureIndex() }

    @Test func symbolWordsAreFoundWholeAndLowercased() {
        var found: [String] = []
        SymbolWords.forEach(
            in: "C++, AT&T and .NET; node.js on 802.11 (I/O) in F#, c#. e.g. the end. a+b #327 https://x.org/y/"
        ) {
            found.append($0)
        }
        #expect(found == ["c++", "at&t", ".net", "node.js", "802.11", "i/o", "f#", "c#", "e.g", "x.org/y"])
        #expect(SymbolWords.whole("C++") == "c++")
        #expect(SymbolWords.whole("node.js.") == "node.js")
        #expect(SymbolWords.whole("tables") == nil)
        #expect(SymbolWords.whole("x,c++") == nil)
    }

    /// #1335's trivia says the comic was remade "using C++ and SFML"; other fixture comics hold
    /// the letter c alone (the parts of `c++` as the tokenizer splits it).
    @Test func cPlusPlusFindsTheComicThatWritesIt() async throws {
        let database = try await Self.index.value
        #expect(try hits(database, "c++") == [1335])
        #expect(try hits(database, "C++").first == 1335)
        #expect(try hits(database, "c").count > 1, "the letter alone is in other comics")
    }

    /// #2347's explanation names Node.js; "node" and "js" alone are not the word.
    @Test func nodeJSFindsTheComicThatNamesIt() async throws {
        let database = try await Self.index.value
        #expect(try hits(database, "node.js") == [2347])
        #expect(try hits(database, "node.js dependency").first == 2347)
    }

    /// A word with symbols that no comic holds whole is the phrase of its parts: `bobby/tables`
    /// finds what "bobby tables" finds, and `tables/bobby` (both words, never in that order)
    /// nothing, where both words alone are in several comics.
    @Test func anUnheldSymbolWordIsThePhraseOfItsParts() async throws {
        let database = try await Self.index.value
        let phrase = try hits(database, "\"bobby tables\"")
        #expect(phrase.first == 327)
        #expect(try hits(database, "bobby/tables") == phrase)
        #expect(try hits(database, "tables/bobby").isEmpty)
        #expect(try !hits(database, "tables bobby").isEmpty)
    }

    /// A passage pasted with markup or code: the marks that join a word's parts keep it whole
    /// (`node.js`, `don't`), any other mark between letters separates words, so no looked-up
    /// word holds `<`, `>`, `=` or a bracket.
    @Test func markupInAPassageSeparatesItsWords() async throws {
        let database = try await Self.index.value
        let found = try SearchEngine(database: database).relevant(
            to: "Please <b>sanitize</b> every input=field (the [tables]) before node.js stores a student's name.")
        #expect(found.words.contains("sanitize"), "\(found.words)")
        #expect(found.words.contains("tables"), "\(found.words)")
        #expect(found.words.contains("node.js"), "\(found.words)")
        #expect(found.words.contains("student's"), "\(found.words)")
        #expect(!found.words.contains { $0.contains(where: { "<>=()[]".contains($0) }) }, "\(found.words)")
        #expect(found.results.first?.id == 327)
    }
}
