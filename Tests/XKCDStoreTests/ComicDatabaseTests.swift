import Foundation
import GRDB
import Synchronization
import Testing
import XKCDFiles
import XKCDModel

@testable import XKCDSnippets
@testable import XKCDStore

/// Real comics (text from the xkcd JSON and explain xkcd), written as literals so the store is
/// tested alone.
enum Sample {
    static let exploits = Comic(
        id: 327, title: "Exploits of a Mom",
        alt: "Her daughter is named Help I'm trapped in a driver's license factory.",
        transcript: "[[A woman is talking on the phone.]]\nPhone: Hi, this is your son's school.",
        imageURL: "https://imgs.xkcd.com/comics/exploits_of_a_mom.png",
        date: ComicDate(year: 2007, month: 10, day: 10))
    static let dependency = Comic(
        id: 2347, title: "Dependency",
        alt: "Someday ImageMagick will finally break for good and we'll have a long period of scrambling.",
        date: ComicDate(year: 2020, month: 8, day: 17))
    static let sandwich = Comic(
        id: 149, title: "Sandwich", alt: "Proper User Policy apparently means Simon Says.",
        date: ComicDate(year: 2006, month: 8, day: 2))

    static func explanation(_ id: Int, _ text: String, transcript: String = "", incomplete: Bool = false) -> Explanation
    {
        Explanation(
            comicID: id, pageTitle: "\(id)",
            page: ExplainedPage(
                explanation: text, transcript: transcript, trivia: "", categories: ["All comics"],
                isIncomplete: incomplete),
            categories: ["All comics"], revision: 1)
    }

    static func date(_ iso: String) -> Date {
        ISO8601DateFormatter().date(from: iso + "T00:00:00Z")!
    }
}

@Suite struct ComicDatabaseTests {
    let database = try! ComicDatabase.inMemory()

    /// Each spell of documents newer than the ranking index has its own generation: lengths
    /// cached during one are not taken for another, after a rebuild in between added a comic.
    @Test func staleSpellsDoNotShareCachedLengths() throws {
        try database.apply([ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged)]
        )
        try database.rebuildRankingIndex()
        try database.apply([ComicUpdate(id: 149, comic: .unchanged, explanation: .unchanged)])
        #expect(try database.readTermScores(for: ["sandwich"]).matchingAll == [149])
        try database.apply([ComicUpdate(id: 327, comic: .fetched(Sample.exploits, at: Date()), explanation: .unchanged)]
        )
        try database.rebuildRankingIndex()
        try database.apply([ComicUpdate(id: 149, comic: .unchanged, explanation: .unchanged)])
        #expect(try database.rankingIndexIsCurrent() == false)
        #expect(try database.readTermScores(for: ["exploits"]).matchingAll == [327])
    }

    /// Damaged spelling blobs end the lookup; they never trap.
    @Test func damagedSpellingBlobsAreReadSafely() throws {
        try database.apply([ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged)]
        )
        try database.rebuildRankingIndex()
        try database.writer.write { db in
            try db.execute(
                sql: "UPDATE spellingBucket SET words = x'FFFFFFFFFFFFFFFF7F01' || words WHERE prefix = 'sa'")
            try db.execute(
                sql: "UPDATE rankingTerm SET postings = x'FFFFFFFFFFFFFFFF7F01' || postings WHERE term = 'sandwich'")
        }
        #expect(try database.reading { try $0.spellingCandidates(near: "sandwhich") }.isEmpty)
        _ = try database.readTermScores(for: ["sandwich"])
    }

    /// Documents stored after the ranking index was built (a run of the indexer stopped before
    /// rebuilding it) are matched by FTS5 until the next rebuild.
    @Test func documentsNewerThanTheRankingIndexAreMatchedByFTS5() throws {
        try database.rebuildRankingIndex()
        #expect(try database.rankingIndexIsCurrent())
        try database.apply([ComicUpdate(id: 327, comic: .fetched(Sample.exploits, at: Date()), explanation: .unchanged)]
        )
        #expect(try database.rankingIndexIsCurrent() == false)
        let query = TextQuery.or([.term("exploits", field: nil), .prefix("daught", field: nil)])
        #expect(try database.reading { try $0.comicIDsFromPostings(matching: query) } == nil)
        #expect(try database.readComicIDs(matching: query) == [327])
        try database.rebuildRankingIndex()
        #expect(try database.rankingIndexIsCurrent())
        #expect(try database.reading { try $0.comicIDsFromPostings(matching: query) } == [327])
    }

    @Test func storedComicsAndExplanationsRoundTrip() throws {
        let explanation = Sample.explanation(
            327, "Bobby Tables is an SQL injection.", transcript: "Mom: Did you break something?")
        try database.apply([
            ComicUpdate(
                id: 327, comic: .fetched(Sample.exploits, at: Date()), explanation: .fetched(explanation, at: Date()))
        ])
        #expect(try database.comic(327) == Sample.exploits)
        #expect(try database.explanation(for: 327) == explanation)
        #expect(try database.comic(328) == nil)
        #expect(try database.latestComicID() == 327)
    }

    @Test func searchPrefersTheExplainTranscriptAndFindsExplanationWords() throws {
        try database.apply([
            ComicUpdate(
                id: 327, comic: .fetched(Sample.exploits, at: Date()),
                explanation: .fetched(
                    Sample.explanation(
                        327, "Little Bobby Tables drops the Students table.",
                        transcript: "Mom: Oh, yes. Little Bobby Tables"), at: Date())),
            ComicUpdate(id: 2347, comic: .fetched(Sample.dependency, at: Date()), explanation: .unchanged),
        ])
        try database.rebuildRankingIndex()
        #expect(
            try database.readComicIDs(matching: .and([.term("bobby", field: nil), .term("tables", field: nil)])) == [
                327
            ])
        #expect(try database.readTermScores(for: ["bobby", "tables"]).matchingAll == [327])
        #expect(try database.readComicIDs(matching: .term("imagemagick", field: nil)) == [2347])
        // The JSON transcript was replaced by explain xkcd's, so its words no longer match.
        #expect(try database.readComicIDs(matching: .term("phone", field: nil)).isEmpty)
    }

    @Test func summariesSnippetsAndMatchesComeBackInTheOrderAskedFor() throws {
        try database.apply([
            ComicUpdate(
                id: 327, comic: .fetched(Sample.exploits, at: Date()),
                explanation: .fetched(
                    Sample.explanation(327, "Little Bobby Tables drops the Students table."), at: Date())),
            ComicUpdate(id: 2347, comic: .fetched(Sample.dependency, at: Date()), explanation: .unchanged),
            ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged),
        ])
        try database.rebuildRankingIndex()
        // A comic with nothing to search (no row of text) still has its line, with no snippet.
        try database.writer.write { db in try db.execute(sql: "DELETE FROM searchDocument WHERE id = 2347") }
        try database.reading { snapshot in
            let summaries = try snapshot.summaries(of: [2347, 5, 327, 2347])
            #expect(summaries.map { $0?.id } == [2347, nil, 327, 2347])
            #expect(summaries[2]?.title == "Exploits of a Mom")
            #expect(try snapshot.summaries(of: []).isEmpty)
            let scores = try snapshot.termScores(for: ["tables"])
            let page = try snapshot.summariesAndSnippets(
                of: [5, 327, 149, 2347], scores: scores, words: ["tables"], marks: ("[", "]"))
            #expect(page.map { $0?.summary.id } == [nil, 327, 149, 2347])
            #expect(page[3]?.summary.title == "Dependency")
            #expect(page[3]?.snippet == "")
            #expect(page[1]?.summary.title == "Exploits of a Mom")
            #expect(page[1]?.summary.date == ComicDate(year: 2007, month: 10, day: 10))
            #expect(page[1]?.snippet.contains("[Tables]") == true)
            // A comic without the word still has its line: its title text, whole.
            #expect(page[2]?.summary.title == "Sandwich")
            #expect(page[2]?.snippet == "Proper User Policy apparently means Simon Says.")
            // Ascending, whether the query has positive words or only exclusions.
            #expect(
                try snapshot.comicIDs(
                    matching: .or([
                        .term("bobby", field: nil), .term("simon", field: nil), .term("imagemagick", field: nil),
                    ])) == [149, 327, 2347])
            #expect(try snapshot.comicIDs(matching: .and([.not(.term("bobby", field: nil))])) == [149, 2347])
        }
    }

    /// Words of one letter match only alone, and a stem of two bytes (a stem ending in "i"
    /// without it) still begins words.
    @Test func snippetsMatchOneLetterWordsAndShortStems() {
        let text = Array("A cat, an ox; a b. Lucky luck".utf8)
        let matcher = SnippetMatcher(words: ["a", "ox"], stems: ["lucki"])
        var matches: [SnippetWindow.Match] = []
        let snippet = text.withUnsafeBytes {
            SnippetWindow.best(in: $0, matcher: matcher, length: 24, matches: &matches).render(
                $0, marks: .init(("[", "]")))
        }
        #expect(snippet == "[A] cat, an [ox]; [a] b. [Lucky] [luck]")
    }

    @Test func planAsksOnlyForWhatIsMissingOrStillChanging() throws {
        let now = Sample.date("2026-01-01")
        try database.apply(
            [
                ComicUpdate(
                    id: 149, comic: .fetched(Sample.sandwich, at: now),
                    explanation: .fetched(Sample.explanation(149, "sudo"), at: now)),
                ComicUpdate(
                    id: 327, comic: .fetched(Sample.exploits, at: now),
                    explanation: .fetched(Sample.explanation(327, "x", incomplete: true), at: now)),
                // Fetched three days after the comic: the wiki is likely to change it.
                ComicUpdate(
                    id: 2347, comic: .fetched(Sample.dependency, at: now),
                    explanation: .fetched(Sample.explanation(2347, "x"), at: Sample.date("2020-08-20"))),
                ComicUpdate(id: 404, comic: .absent, explanation: .unchanged),
            ], attemptedAt: now)
        let plan = try database.plan(upTo: 2347)
        #expect(!plan.comics.contains(149) && !plan.comics.contains(327) && !plan.comics.contains(404))
        #expect(plan.comics.contains(1) && plan.comics.contains(2346))
        #expect(!plan.explanations.contains(149))
        #expect(plan.explanations.contains(327))
        #expect(plan.explanations.contains(2347))
        #expect(!plan.explanations.contains(404))
    }

    /// An incomplete or fresh explanation is asked for again once a day, not on every run.
    @Test func anExplanationThatMayChangeIsAskedForAtMostOnceADay() throws {
        let fetched = Sample.date("2026-01-01")
        try database.apply(
            [
                ComicUpdate(
                    id: 149, comic: .fetched(Sample.sandwich, at: fetched),
                    explanation: .fetched(Sample.explanation(149, "sudo"), at: fetched)),
                ComicUpdate(
                    id: 327, comic: .fetched(Sample.exploits, at: fetched),
                    explanation: .fetched(Sample.explanation(327, "x", incomplete: true), at: fetched)),
            ], attemptedAt: fetched)
        let soon = try database.plan(upTo: 327, now: fetched.addingTimeInterval(23 * 3600))
        #expect(!soon.explanations.contains(327) && !soon.explanations.contains(149), "\(soon.explanations)")
        let later = try database.plan(upTo: 327, now: fetched.addingTimeInterval(25 * 3600))
        #expect(later.explanations.contains(327) && !later.explanations.contains(149), "\(later.explanations)")
    }

    /// The day is counted from when the run asked, not from the response's date: a mirror's
    /// files may be months old, and an explanation not written yet has no date at all.
    @Test func theDayIsCountedFromTheRunThatAsked() throws {
        let asked = Sample.date("2026-03-01")
        try database.apply(
            [
                // A page not written yet, and an incomplete page from a file of last year.
                ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: asked), explanation: .absent),
                ComicUpdate(
                    id: 327, comic: .fetched(Sample.exploits, at: asked),
                    explanation: .fetched(
                        Sample.explanation(327, "x", incomplete: true), at: Sample.date("2025-03-01"))),
                ComicUpdate(
                    id: 2347, comic: .fetched(Sample.dependency, at: asked), explanation: .failed("HTTP 500")),
            ], attemptedAt: asked)
        let soon = try database.plan(upTo: 2347, now: asked.addingTimeInterval(3600))
        #expect(soon.explanations.filter([149, 327, 2347].contains) == [2347], "a failure is asked on the next run")
        let later = try database.plan(upTo: 2347, now: asked.addingTimeInterval(25 * 3600))
        #expect(later.explanations.filter([149, 327, 2347].contains) == [149, 327, 2347])
    }

    @Test func failuresAreListedUntilARetrySucceeds() throws {
        try database.apply([ComicUpdate(id: 149, comic: .failed("HTTP 500"), explanation: .unchanged)])
        #expect(try database.failures() == [IndexFailure(id: 149, resource: "comic", message: "HTTP 500")])
        #expect(try database.plan(upTo: 149).comics.contains(149))
        try database.apply([ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged)]
        )
        #expect(try database.failures().isEmpty)
    }

    @Test func fullTextIndexSurvivesRebuildAndChecksClean() throws {
        try database.apply([ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged)]
        )
        try database.rebuildFullTextIndex()
        try database.optimizeFullTextIndex()
        #expect(try database.integrityProblems().isEmpty)
        #expect(try database.readComicIDs(matching: .term("simon", field: nil)) == [149])
    }

    @Test func quotesAndOperatorsInWordsStayLiteral() throws {
        try database.apply([ComicUpdate(id: 327, comic: .fetched(Sample.exploits, at: Date()), explanation: .unchanged)]
        )
        #expect(
            try database.readComicIDs(matching: .and([.term("driver's", field: nil), .term("\"license", field: nil)]))
                == [327])
        #expect(
            try database.readComicIDs(matching: .and([.term("NEAR(", field: nil), .term("OR", field: nil)])).isEmpty)
        #expect(try database.readComicIDs(matching: .phrase(["trapped\"", "in"], field: .alt)) == [327])
        #expect(try database.readComicIDs(matching: .term("trapped", field: .title)).isEmpty)
        // Nothing searchable is left of `*`: no match, and no FTS5 syntax error.
        #expect(try database.readComicIDs(matching: .term("*", field: nil)).isEmpty)
    }

    @Test func exclusionsPrefixesAndOr() throws {
        try database.apply([
            ComicUpdate(id: 327, comic: .fetched(Sample.exploits, at: Date()), explanation: .unchanged),
            ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged),
            ComicUpdate(id: 2347, comic: .fetched(Sample.dependency, at: Date()), explanation: .unchanged),
        ])
        #expect(try database.readComicIDs(matching: .not(.term("sandwich", field: nil))) == [327, 2347])
        #expect(try database.readComicIDs(matching: .prefix("depend", field: .title)) == [2347])
        #expect(
            try database.readComicIDs(matching: .or([.term("simon", field: nil), .term("imagemagick", field: nil)]))
                == [149, 2347])
        #expect(
            try database.readComicIDs(matching: .and([.prefix("s", field: nil), .not(.term("simon", field: nil))])) == [
                327, 2347,
            ])
        // NOT binds tighter than OR in FTS5: the exclusion must still apply to the whole OR.
        #expect(
            try database.readComicIDs(
                matching: .and([
                    .or([.term("simon", field: nil), .term("imagemagick", field: nil)]),
                    .not(.term("sandwich", field: nil)),
                ])) == [2347])
    }

    /// #149 (Sandwich), whose explanation names a dependency, and #2347 (Dependency), ranked.
    private func indexSandwichAndDependency() throws {
        try database.apply([
            ComicUpdate(
                id: 149, comic: .fetched(Sample.sandwich, at: Date()),
                explanation: .fetched(
                    Sample.explanation(149, "A sandwich, made with sudo. Dependency on sandwiches."), at: Date())),
            ComicUpdate(id: 2347, comic: .fetched(Sample.dependency, at: Date()), explanation: .unchanged),
        ])
        try database.rebuildRankingIndex()
    }

    @Test func rankingPutsTheExactTitleFirstAndScoresAreStemmed() throws {
        try indexSandwichAndDependency()
        let scores = try database.readTermScores(for: ["dependency"])
        #expect(Set(scores.candidates) == [149, 2347])
        #expect(scores.score(2347) > scores.score(149) + 50)
        #expect(try database.readTermScores(for: ["sandwiches"]).candidates == [149])
        #expect(try database.readTermScores(for: ["sandwichez"]).unseenWords == ["sandwichez"])
        #expect(try database.readTermScores(for: ["qqqq"]).unknownWords == ["qqqq"])
    }

    /// What `relevant` lifts: a comic whose title's every word (by stem) the words hold.
    @Test func termScoresSayWhoseWholeTitleTheWordsHold() throws {
        try indexSandwichAndDependency()
        let scores = try database.readTermScores(for: ["our", "dependencies", "and", "a", "sandwich"])
        #expect(scores.holdsWholeTitle(of: 2347) && scores.holdsWholeTitle(of: 149))
        let sudo = try database.readTermScores(for: ["sudo", "sandwiches"])
        #expect(sudo.holdsWholeTitle(of: 149) && !sudo.holdsWholeTitle(of: 2347))
        #expect(!sudo.holdsWholeTitle(of: 99_999))
    }
}
