import Foundation
import GRDB
import Logging
import Testing
import XKCDIndexer
import XKCDQuery
import _XKCDTestSupport

@testable import XKCDKit
@testable import XKCDStore

/// One index of the real fixture subset (comics 1-10, 149, 221, 259, 327, 472, 802, 936, 2347, …),
/// built once and shared: the engine only reads it.
let sharedFixtureIndex = Task { try await makeFixtureIndex() }

private func ids(_ query: String, limit: Int = 10) async throws -> [Int] {
    try SearchEngine(database: await sharedFixtureIndex.value).search(query, limit: limit).results.map(\.id)
}

/// The first query of a process computes BM25F's occurrence weights as it meets them, later
/// ones read them cached: both must score alike to the bit, or the first search of a REPL
/// would order ties differently from the same search repeated.
@Test func aRepeatedSearchScoresAsTheFirstDid() async throws {
    let engine = SearchEngine(database: try await makeFixtureIndex())
    let query = "little bobby tables school database password strength"
    let first = try engine.search(query, limit: 50)
    let second = try engine.search(query, limit: 50)
    let third = try engine.search(query, limit: 50)
    // Searched as typed, so that the first search looks the weights up once, computing them.
    #expect(first.corrected == nil)
    #expect(first.results.count > 10)
    #expect(third.results.map(\.score) == second.results.map(\.score))
    #expect(first.results.map(\.id) == second.results.map(\.id))
    #expect(first.results.map(\.score) == second.results.map(\.score))
}

@Suite("Ranking on the fixture subset")
struct RankingTests {
    func engine() async throws -> SearchEngine {
        SearchEngine(database: try await sharedFixtureIndex.value)
    }

    @Test(arguments: [
        ("exploits of a mom", 327), ("Dependency", 2347), ("password strength", 936),
        ("sandwich", 149), ("house of pancakes", 472), ("online communities 2", 802),
    ])
    func exactTitleRanksFirst(_ query: String, _ expected: Int) async throws {
        #expect(try await ids(query).first == expected)
    }

    @Test func aNumberShowsThatComicFirstThenTextMentioningIt() async throws {
        let engine = try await engine()
        let results = try engine.search("327")
        #expect(results.results.first?.id == 327)
        #expect(try await ids("#149").first == 149)
        // 149 is in no other fixture text, so it is alone.
        #expect(try await ids("149") == [149])
    }

    @Test func phrasesMatchOnlyInOrder() async throws {
        #expect(try await ids("\"little bobby tables\"").contains(327))
        #expect(try await !ids("\"tables bobby little\"").contains(327))
    }

    @Test func prefixesExpand() async throws {
        #expect(try await ids("sandwi*").first == 149)
        #expect(try await ids("imagemag*") == [2347])
    }

    @Test func exclusionsRemoveComics() async throws {
        let withSudo = try await ids("sudo")
        #expect(withSudo.contains(149))
        #expect(try await !ids("sudo -sandwich").contains(149))
        #expect(try await !ids("-sandwich", limit: 100).contains(149))
        #expect(try await ids("-sandwich", limit: 100).count > 20)
    }

    @Test func fieldScopes() async throws {
        #expect(try await ids("title:dependency") == [2347])
        #expect(try await ids("alt:imagemagick") == [2347])
        #expect(try await !ids("title:imagemagick").contains(2347))
    }

    @Test func orMatchesEither() async throws {
        let both = try await ids("imagemagick OR sudo")
        #expect(both.contains(2347) && both.contains(149))
    }

    @Test func numberAndDateFilters() async throws {
        #expect(try await ids("num:1..5") == [1, 2, 3, 4, 5])
        let engine = try await engine()
        let year2007 = try engine.search("year:2007", limit: 100).results
        #expect(!year2007.isEmpty && year2007.allSatisfy { $0.date.year == 2007 })
        #expect(year2007.map(\.date) == year2007.map(\.date).sorted())
        #expect(try await ids("tables num:300..400") == [327])
        #expect(try await ids("tables before:2007").isEmpty)
        // Dates past year 9999 sort as text before every comic's: they must still find nothing.
        for query in ["after:9999", "after:9999-12", "after:9999-12-31", "tables before:0001"] {
            #expect(try await ids(query).isEmpty, "\(query)")
        }
        #expect(try await ids("tables num:300..400 before:9999-12-31") == [327])
        #expect(try await ids("date:2020-08..2020-08") == [2347])
        let newest = try engine.search("sort:-date year:2006..2010", limit: 50).results.map(\.date)
        #expect(newest == newest.sorted(by: >))
    }

    @Test func favouritesAndTagsFilter() async throws {
        let database = try await makeFixtureIndex()
        let library = Library(database: database)
        _ = try library.addFavourite(.number(327), tags: ["sql"])
        _ = try library.addFavourite(.number(149), tags: ["unix"])
        let engine = SearchEngine(database: database)
        #expect(try Set(engine.search("is:fav").results.map(\.id)) == [149, 327])
        #expect(try engine.search("tag:sql").results.map(\.id) == [327])
        #expect(try engine.search("tag:SQL tables").results.map(\.id) == [327])
        #expect(try engine.search("is:fav -sandwich").results.map(\.id) == [327])
    }

    @Test func typosAreCorrectedWhenTheWordExistsNowhere() async throws {
        let engine = try await engine()
        let results = try engine.search("sandwhich")
        #expect(results.corrected == "sandwich")
        #expect(results.results.first?.id == 149)
        let suggestion = try engine.search("bobby tabels")
        #expect(suggestion.corrected == "bobby tables")
        #expect(suggestion.results.first?.id == 327)
    }

    /// A typo in the first letters is found too: the second letter dropped, doubled or swapped.
    @Test(arguments: ["sndwich", "saandwich", "snadwich"])
    func typosOfTheSecondLetterAreCorrected(typed: String) async throws {
        let results = try await engine().search(typed)
        #expect(results.corrected == "sandwich")
        #expect(results.results.first?.id == 149)
    }

    /// Another form of a word the index holds is found by its stem: no correction, no notice.
    /// A six-letter word is not corrected two edits away ("segura" is not "secure").
    @Test func realWordsAreNotCorrectedNeedlessly() async throws {
        let engine = try await engine()
        let inflected = try engine.search("sandwiches")
        #expect(
            inflected.corrected == nil && inflected.suggestion == nil,
            "\(inflected.corrected ?? inflected.suggestion ?? "")")
        #expect(inflected.results.first?.id == 149)
        let foreign = try engine.search("segura")
        #expect(foreign.corrected == nil, "\(foreign.corrected ?? "")")
        #expect(try engine.search("secur").corrected == "secure")
        #expect(
            SearchEngine.isInflection(of: "waggles", and: "waggle")
                && SearchEngine.isInflection(of: "sandwiches", and: "sandwiched"))
        #expect(
            !SearchEngine.isInflection(of: "secur", and: "secure")
                && !SearchEngine.isInflection(of: "clases", and: "class"))
        // A misspelling one letter from a word is no form of it: "standars" is corrected to "standards".
        #expect(!SearchEngine.isInflection(of: "standars", and: "standard"))
    }

    @Test func aCorrectionToATitleWordBeatsACommonerOneAsNear() async throws {
        // "clase" is one edit from "class" (in #7's title, 3 comics) and "close" (8 comics).
        let results = try await engine().search("clase")
        #expect(results.corrected == "class")
        #expect(results.results.first?.id == 7)
    }

    @Test func aLongDescriptionFallsBackToComicsHoldingSomeOfItsWords() async throws {
        // No comic holds all of these words; 327 holds most of the rare ones.
        let engine = try await engine()
        let results = try engine.search("mom names her son with sql code to wipe the school student records zebra")
        #expect(results.results.prefix(3).contains { $0.id == 327 })
        #expect(results.results.contains { $0.isPartialMatch })
    }

    /// A first run of the indexer killed after storing comics leaves the ranking index as the
    /// schema made it (empty) and older than the documents: words are then matched by FTS5,
    /// and must still be ranked (by its bm25()), not listed in number order.
    @Test func wordsAreRankedWhileTheRankingIndexIsStale() async throws {
        let database = try await makeFixtureIndex()
        try database.write { db in
            for table in ["rankingTerm", "rankingData", "spellingTerm", "spellingBucket"] {
                try db.execute(sql: "DELETE FROM \(table)")
            }
            try db.execute(sql: "UPDATE setting SET value = 'stale-killed' WHERE key = 'rankingGeneration'")
        }
        #expect(try database.rankingIndexIsCurrent() == false)
        let engine = SearchEngine(database: database)
        // "now" is in 13 comics from #6 on; #1335's title is the word. "work" is in 15 from #4 on.
        for (word, titled) in [("now", 1335), ("work", 2207)] {
            let results = try engine.search(word, limit: 10).results
            #expect(results.count == 10, "\(word): \(results.map(\.id))")
            #expect(results.first?.id == titled, "\(word): \(results.map(\.id))")
            #expect(
                zip(results, results.dropFirst()).allSatisfy { $0.score >= $1.score },
                "\(word): \(results.map { ($0.id, $0.score) })")
        }
        // Two words: both held, ranked the same way.
        #expect(try engine.search("math work", limit: 10).results.first?.id == 2207)
    }

    @Test func theSyntaxHelpNamesTheFallbackThreshold() {
        #expect(QueryParser.syntaxHelp.contains("fewer than \(SearchEngine.fallbackThreshold) comics"))
    }

    @Test func aWordNoComicHoldsBesideOneKnownWordStillFindsTheKnownOne() async throws {
        // "qqqzzzx" is nowhere and too far from every word to be corrected.
        let results = try await engine().search("sandwich qqqzzzx")
        #expect(results.corrected == nil)
        #expect(results.results.first?.id == 149 && results.results.first?.isPartialMatch == true)
    }

    @Test func partialAndFullMatchesShareOneOrderByScore() async throws {
        // 802 holds all five words in passing; 1335 holds four, in its title text and transcript.
        for query in [
            "centered there particular australian change",
            "mom names her son with sql code to wipe the school student records",
        ] {
            let results = try await engine().search(query).results
            #expect(results.contains { $0.isPartialMatch }, "\(query)")
            #expect(
                zip(results, results.dropFirst()).allSatisfy { $0.score >= $1.score },
                "\(query): \(results.map { ($0.id, $0.score) })")
        }
        let first = try #require(try await engine().search("centered there particular australian change").results.first)
        #expect(first.id == 1335 && first.isPartialMatch)
    }

    @Test func wordsSideBySideInTheComicEarnTheProximityBonus() async throws {
        let database = try await sharedFixtureIndex.value
        var withoutProximity = RankingWeights()
        withoutProximity.proximity = 0
        func score(_ query: String, _ weights: RankingWeights) throws -> Double? {
            try SearchEngine(database: database, weights: weights).search(query).results.first { $0.id == 149 }?.score
        }
        // 149's transcript says "Sudo make me a sandwich": every pair of the line, in order.
        let inOrder = try #require(try score("sudo make me a sandwich", RankingWeights()))
        let plain = try #require(try score("sudo make me a sandwich", withoutProximity))
        #expect(abs(inOrder - plain - RankingWeights().proximity) < 0.001)
        // The same words in another order are no line of the comic.
        let shuffled = try #require(try score("sandwich a me make sudo", RankingWeights()))
        #expect(abs(shuffled - (try #require(try score("sandwich a me make sudo", withoutProximity)))) < 0.001)

        let words = ["make", "a", "sandwich", "don't"]
        let shares = try database.reading { snapshot in
            try snapshot.adjacentPairShares(
                of: [149, 327, 100_000], words: words, scores: try snapshot.termScores(for: words))
        }
        #expect(shares == [0.25, 0, 0])
    }

    @Test func snippetsHighlightTheMatchedWords() async throws {
        let engine = try await engine()
        let result = try #require(try engine.search("imagemagick").results.first)
        let open = SearchEngine.highlightMarks.open
        let close = SearchEngine.highlightMarks.close
        #expect(result.snippet.contains("\(open)ImageMagick\(close)"))
    }

    @Test func pagingKeepsTheTotalAndMovesOn() async throws {
        let engine = try await engine()
        let first = try engine.search("the", limit: 3, page: 1)
        let second = try engine.search("the", limit: 3, page: 2)
        #expect(first.total == second.total && first.total > 6)
        #expect(Set(first.results.map(\.id)).isDisjoint(with: second.results.map(\.id)))
        #expect(first.hasNextPage)
        #expect(try engine.search("the", limit: 3, page: 1000).results.isEmpty)
    }

    /// A query with nothing to search for is a usage error, not "no comics found"; an exclusion,
    /// a filter or a sort alone is something to search for.
    @Test(arguments: ["🎉", "", "   ", "-", "()", "*", "( )"])
    func nothingSearchableIsAnError(_ query: String) async throws {
        let engine = try await engine()
        #expect(throws: SearchError.nothingToSearch) { try engine.search(query) }
    }

    @Test(arguments: ["-physics", "year:2010", "sort:-date", "#327"])
    func exclusionsFiltersAndSortsAloneAreSearches(_ query: String) async throws {
        #expect(try await engine().search(query).total > 0)
    }

    @Test(arguments: ["\"unclosed", "(a b", "num:9..3", "date:2010-13", "year:2010..2009"])
    func malformedQueriesAreQueryErrors(_ query: String) async throws {
        let engine = try await engine()
        #expect(throws: QueryError.self) { try engine.search(query) }
    }
}

@Suite("Hostile input through the whole search path")
struct HostileSearchTests {
    /// 10,000 random strings from an alphabet of FTS5 and query syntax, SQL, control
    /// characters, invalid UTF-8 and emoji: each gives results or a clean one-line error.
    @Test func randomStringsNeverCrash() async throws {
        let engine = SearchEngine(database: try await sharedFixtureIndex.value)
        var generator = SplitMix64(seed: 0x5EED)
        let pieces = [
            "\"", "'", "(", ")", "*", "^", ":", "-", "#", "..", " OR ", " AND ", " NOT ", "NEAR(", "NEAR/3", "{", "}",
            "title:", "alt:", "num:", "year:", "date:", "before:", "after:", "is:fav", "tag:", "sort:", "rowid",
            "'; DROP TABLE comic;--", "\" OR 1=1 --", "SELECT * FROM comicSearch", "\0", "\u{1B}[31m", "\u{7F}",
            "\r\n", "\t", "🎉", "👩‍💻", "é", "\u{301}", "\u{202E}", "bobby", "tables", "327", "2010", "c++", "AT&T", "50%",
        ]
        for _ in 0..<10_000 {
            var query = ""
            for _ in 0..<Int(generator.next() % 8) {
                if generator.next() % 10 == 0 {
                    let bytes = (0..<Int(generator.next() % 6)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                    query += String(decoding: bytes, as: UTF8.self)
                } else {
                    query += pieces[Int(generator.next() % UInt64(pieces.count))]
                }
            }
            do {
                let results = try engine.search(query, limit: 5)
                #expect(results.results.count <= 5)
            } catch let error as QueryError {
                #expect(!error.description.contains("\n"))
            } catch let error as SearchError {
                #expect(error == .nothingToSearch, "\(error)")
            } catch {
                Issue.record("\(error) for \(query.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
    }

    @Test func aOneMegabyteQueryIsACleanError() async throws {
        let engine = SearchEngine(database: try await sharedFixtureIndex.value)
        let huge = String(repeating: "bobby tables ", count: 80_000)
        #expect(throws: SearchError.self) { try engine.search(huge) }
    }
}

@Suite("Ordering only the first results")
struct SortPrefixTests {
    @Test(arguments: [0, 1, 3, 10, 24, 99, 100, 101, 1_000])
    func theFirstElementsAreThoseOfAFullSort(_ count: Int) {
        var generator = SystemRandomNumberGenerator()
        for size in [0, 1, 2, 5, 40, 400] {
            // Few distinct keys, so that ties are broken by the second key as the engine does.
            let elements = (0..<size).map { (key: Int.random(in: 0..<8, using: &generator), id: $0) }.shuffled()
            let precedes = { (a: (key: Int, id: Int), b: (key: Int, id: Int)) in
                a.key > b.key || (a.key == b.key && a.id < b.id)
            }
            var partial = elements
            partial.sortPrefix(count, by: precedes)
            let sorted = elements.sorted(by: precedes)
            #expect(partial.prefix(count).map(\.id) == sorted.prefix(count).map(\.id))
            #expect(partial.map(\.id).sorted() == elements.map(\.id).sorted())
        }
    }
}

@Suite("Pages in the order of the whole ranking")
struct PageOrderTests {
    @Test(arguments: [
        "the", "comic", "python environment", "physics -math", "tabl*", "a OR the",
        // word pairs in order (the proximity bonus), and partial matches among full ones
        "sudo make me a sandwich", "centered there particular australian change",
    ])
    func pagesConcatenateToTheFirstResultsOfOneLargePage(_ query: String) async throws {
        let engine = SearchEngine(database: try await sharedFixtureIndex.value)
        let large = try engine.search(query, limit: 12).results.map(\.id)
        var paged: [Int] = []
        for page in 1...4 { paged += try engine.search(query, limit: 3, page: page).results.map(\.id) }
        #expect(paged == large)
    }

    @Test func theLastPossiblePageIsEmptyNotATrap() async throws {
        let engine = SearchEngine(database: try await sharedFixtureIndex.value)
        #expect(try engine.search("the", limit: 1, page: .max).results.isEmpty)
        #expect(
            try engine.search("the", limit: .max, page: 1).results.count
                == (try engine.search("the", limit: 1000).total))
        #expect(try engine.search("the", limit: .max, page: 2).results.isEmpty)
    }
}

/// Words read from an image by OCR: a misread long word is read as the indexed word nearest in
/// spelling; a known word and a short one (mostly noise from drawings) stay as read.
@Test func aMisreadLongWordIsCorrectedAndShortOnesStay() async throws {
    let engine = SearchEngine(database: try await makeFixtureIndex())
    let read = ["infrastucture", "dependency", "cot"]
    #expect(try engine.correctingMisreadWords(read) == ["infrastructure", "dependency", "cot"])
}
