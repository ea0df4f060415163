import Foundation
import GRDB
import Testing
import XKCDModel

@testable import XKCDStore

/// The links between comics: written with each explanation, read both ways.
@Suite struct ComicLinksTests {
    @Test func linksAreWrittenWithTheExplanationAndReadBothWays() throws {
        let database = try ComicDatabase.inMemory()
        var mom = Sample.explanation(327, "Bobby Tables.")
        mom.page.linkedComics = [327, 149, 2347, 9999]  // itself, two comics, one not indexed
        var sandwich = Sample.explanation(149, "sudo.")
        sandwich.page.linkedComics = [327]
        try database.apply([
            ComicUpdate(id: 327, comic: .fetched(Sample.exploits, at: Date()), explanation: .fetched(mom, at: Date())),
            ComicUpdate(
                id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .fetched(sandwich, at: Date())),
            ComicUpdate(id: 2347, comic: .fetched(Sample.dependency, at: Date()), explanation: .unchanged),
        ])
        let links = try database.linkedComics(of: 327)
        #expect(links.map(\.id) == [149, 2347])
        // How many explanations link to each (the link prior of a passage's ranking).
        #expect(try database.reading { try $0.linkingCounts(to: [327, 149, 2347, 1]) } == [327: 1, 149: 1, 2347: 1])
        #expect(links.map(\.isOutgoing) == [true, true] && links.map(\.isIncoming) == [true, false])
        #expect(links.first?.title == "Sandwich" && links.first?.date == Sample.sandwich.date)
        #expect(
            try database.linkedComics(of: 2347).map { [$0.id, $0.isOutgoing ? 1 : 0, $0.isIncoming ? 1 : 0] } == [
                [327, 0, 1]
            ])
        // A new version of an explanation replaces its links.
        mom.page.linkedComics = [2347]
        try database.apply([ComicUpdate(id: 327, comic: .unchanged, explanation: .fetched(mom, at: Date()))])
        #expect(
            try database.linkedComics(of: 327).map { [$0.id, $0.isOutgoing ? 1 : 0, $0.isIncoming ? 1 : 0] } == [
                [149, 0, 1], [2347, 1, 0],
            ])
    }

    /// v8 marks an index whose explanations were stored without their links; not an empty one.
    @Test(arguments: [true, false])
    func anOlderIndexWithExplanationsIsMarkedForParsingAgain(hasExplanation: Bool) throws {
        try withIndexPath { path in
            let older = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(older, upTo: "v7-spelling-buckets")
            if hasExplanation {
                try older.write { db in
                    try db.execute(
                        sql: """
                            INSERT INTO explanation(comicID, pageTitle, explanation, transcript, trivia, categories, isIncomplete, fetchedAt)
                            VALUES (327, '327: Exploits of a Mom', 'Bobby Tables.', '', '', '', 0, '2026-01-01 00:00:00')
                            """)
                }
            }
            try older.close()
            let database = try ComicDatabase.open(at: path)
            #expect(try database.explanationsNeedParsingAgain() == hasExplanation)
            #expect(try database.explainedComicIDs() == (hasExplanation ? [327] : []))
            try database.markExplanationsParsed()
            #expect(try !database.explanationsNeedParsingAgain())
        }
    }
}
