import Foundation
import GRDB
import Testing
import XKCDModel

@testable import XKCDStore

/// The passages people linked comics to, as the index keeps them (``LinkedPassage``): replaced
/// by a new file without losing the vectors of those that stay, and compared with a query by the
/// nearest passage of each comic the index holds.
@Suite struct LinkedPassageStoreTests {
    private static let passages = [
        LinkedPassage(comic: 327, text: "first passage", source: "https://a.example/1"),
        LinkedPassage(comic: 327, text: "second passage", source: "https://b.example/2"),
        LinkedPassage(comic: 2347, text: "third passage", source: "https://a.example/3"),
        // A comic the index does not hold (yet).
        LinkedPassage(comic: 9999, text: "first passage, of a comic to come", source: "https://c.example/4"),
    ]

    /// An index holding #327 and #2347.
    private static func index() throws -> ComicDatabase {
        let database = try ComicDatabase.inMemory()
        try database.apply(
            [Sample.exploits, Sample.dependency].map {
                ComicUpdate(id: $0.id, comic: .fetched($0, at: Date()), explanation: .unchanged)
            })
        return database
    }

    /// A unit vector of 4 floats pointing along `axis`.
    private static func axis(_ axis: Int) -> [Float] {
        (0..<4).map { $0 == axis ? 1 : 0 }
    }

    /// Stores a vector of `model` for every passage without one: each from its text's first
    /// word, so that the tests know which is where.
    private static func embedAll(_ database: ComicDatabase, model: String = "m") throws {
        let pending = try database.linkedPassagesToEmbed(model: model, dimensions: 4)
        try database.storeLinkedPassageVectors(
            pending.map { passage in
                (passage.id, axis(["first", "second", "third"].firstIndex { passage.text.hasPrefix($0) } ?? 3))
            }, model: model)
    }

    @Test func aNewFileKeepsTheVectorsOfThePassagesThatStay() throws {
        let database = try Self.index()
        #expect(try database.replaceLinkedPassages(Self.passages) == (added: 4, deleted: 0))
        #expect(try database.linkedPassagesToEmbed(model: "m", dimensions: 4).count == 4)
        try Self.embedAll(database)
        #expect(try database.linkedPassagesToEmbed(model: "m", dimensions: 4).isEmpty)
        #expect(try database.embeddedLinkedPassageCounts(model: "m") == (linked: 4, written: 0))
        // The same file again: nothing to embed. One passage gone and one new: only it.
        #expect(try database.replaceLinkedPassages(Self.passages) == (added: 0, deleted: 0))
        var changed = Array(Self.passages.dropLast())
        changed.append(LinkedPassage(comic: 2347, text: "fourth passage", source: "https://c.example/5"))
        #expect(try database.replaceLinkedPassages(changed) == (added: 1, deleted: 1))
        #expect(try database.linkedPassagesToEmbed(model: "m", dimensions: 4).map(\.text) == ["fourth passage"])
        // Another model, or another length of vector, embeds them all again.
        #expect(try database.linkedPassagesToEmbed(model: "other", dimensions: 4).count == 4)
        #expect(try database.linkedPassagesToEmbed(model: "m", dimensions: 8).count == 4)
    }

    /// A file may give one passage twice, or a kept passage a new source: one row, the source the
    /// file's, the vector kept.
    @Test func aPassageGivenTwiceIsOneAndItsSourceIsTheFiles() throws {
        let database = try Self.index()
        _ = try database.replaceLinkedPassages(Self.passages)
        try Self.embedAll(database)
        var again = Self.passages + [Self.passages[0]]
        again[1].source = "https://b.example/moved"
        #expect(try database.replaceLinkedPassages(again) == (added: 0, deleted: 0))
        #expect(try database.embeddedLinkedPassageCounts(model: "m") == (linked: 4, written: 0))
        let query: [Float] = [0, 1, 0, 0]
        let moved = try database.reading {
            try $0.linkedPassageSimilarities(to: query, model: "m", excludingSources: ["https://b.example/moved"])
        }
        #expect(moved.linked[327] == 0, "the second passage, at its new source, is left out: \(moved)")
    }

    @Test func eachComicCountsItsNearestPassageLeavingOutSourcesAskedTo() throws {
        let database = try Self.index()
        _ = try database.replaceLinkedPassages(Self.passages)
        try Self.embedAll(database)
        let query: [Float] = [0.6, 0.8, 0, 0]
        // #9999's passage is near too (0.6), but the index holds no such comic.
        let nearest = try database.reading { try $0.linkedPassageSimilarities(to: query, model: "m") }
        #expect(nearest == LinkedPassageNearness(linked: [327: 0.8, 2347: 0]))
        let without = try database.reading {
            try $0.linkedPassageSimilarities(to: query, model: "m", excludingSources: ["https://b.example/2"])
        }
        #expect(without == LinkedPassageNearness(linked: [327: 0.6, 2347: 0]))
        // Vectors of another model, or of another length, are no vectors of this query's.
        let none = LinkedPassageNearness()
        #expect(try database.reading { try $0.linkedPassageSimilarities(to: query, model: "other") } == none)
        #expect(try database.reading { try $0.linkedPassageSimilarities(to: query + query, model: "m") } == none)
    }

    /// Situations written for a comic are kept as such, counted apart and compared apart: a
    /// written one near the query is no linked one, and a file that makes a passage written (or
    /// no longer) changes only that.
    @Test func writtenSituationsAreKeptAndComparedApart() throws {
        let database = try Self.index()
        var passages = Self.passages
        passages.append(
            LinkedPassage(comic: 2347, text: "second situation", source: "snapshot/written.tsv", isWritten: true))
        _ = try database.replaceLinkedPassages(passages)
        let pending = try database.linkedPassagesToEmbed(model: "m", dimensions: 4)
        try database.storeLinkedPassageVectors(
            pending.map { ($0.id, Self.axis($0.text.hasPrefix("second") ? 1 : 0)) }, model: "m")
        #expect(try database.embeddedLinkedPassageCounts(model: "m") == (linked: 4, written: 1))
        let query: [Float] = [0, 1, 0, 0]
        let nearest = try database.reading { try $0.linkedPassageSimilarities(to: query, model: "m") }
        #expect(nearest.linked == [327: 1, 2347: 0] && nearest.written == [2347: 1], "\(nearest)")
        // Kept in memory from the second read, with the same kinds.
        #expect(try database.reading { try $0.linkedPassageSimilarities(to: query, model: "m") } == nearest)
        #expect(database.linkedPassageCache.isKept)
        // Its row gives its text, for the reason that quotes it.
        let row = try #require(nearest.nearestWritten[2347])
        #expect(try database.reading { try $0.linkedPassageTexts([row]) } == [row: "second situation"])
        // The same passage, now given as one someone linked: one row, no new vector.
        passages[passages.count - 1].isWritten = false
        #expect(try database.replaceLinkedPassages(passages) == (added: 0, deleted: 0))
        #expect(try database.embeddedLinkedPassageCounts(model: "m") == (linked: 5, written: 0))
        let after = try database.reading { try $0.linkedPassageSimilarities(to: query, model: "m") }
        #expect(after == LinkedPassageNearness(linked: [327: 1, 2347: 1]), "\(after)")
    }

    /// A process ranking passages again keeps their vectors in memory (``LinkedPassageCache``):
    /// from the second read on, with the same answers, and read again after any change to the
    /// passages or to which comics the index holds, whoever makes it.
    @Test func keptPassagesAnswerAlikeAndAnyChangeIsSeen() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-linked-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let database = try ComicDatabase.open(at: path)
        try database.apply(
            [Sample.exploits, Sample.dependency].map {
                ComicUpdate(id: $0.id, comic: .fetched($0, at: Date()), explanation: .unchanged)
            })
        _ = try database.replaceLinkedPassages(Self.passages)
        try Self.embedAll(database)
        let query: [Float] = [0.6, 0.8, 0, 0]
        func nearest(leavingOut sources: Set<String> = []) throws -> [Comic.ID: Float] {
            try database.reading {
                try $0.linkedPassageSimilarities(to: query, model: "m", excludingSources: sources).linked
            }
        }
        for read in 1...3 {
            #expect(try nearest() == [327: 0.8, 2347: 0], "read \(read)")
            // A one-shot ranking reads them from the file and keeps nothing; the second keeps them.
            #expect(database.linkedPassageCache.isKept == (read >= 2), "read \(read)")
        }
        #expect(try nearest(leavingOut: ["https://b.example/2"]) == [327: 0.6, 2347: 0])
        // Another connection, as another process indexing: #327's second passage is gone.
        let other = try ComicDatabase.open(at: path)
        _ = try other.replaceLinkedPassages(Self.passages.filter { $0.text != "second passage" })
        #expect(try nearest() == [327: 0.6, 2347: 0])
        #expect(!database.linkedPassageCache.isKept)
        #expect(try nearest() == [327: 0.6, 2347: 0])
        #expect(database.linkedPassageCache.isKept)
        // The comic the fourth passage links to is now held: its passage counts.
        try other.apply([
            ComicUpdate(
                id: 9999,
                comic: .fetched(Comic(id: 9999, title: "To Come", alt: "", date: Sample.exploits.date), at: Date()),
                explanation: .unchanged)
        ])
        for _ in 1...2 { #expect(try nearest() == [327: 0.6, 2347: 0, 9999: 0.6]) }
        // A plain SQLite connection, as another program would write.
        let plain = try DatabaseQueue(path: path)
        try plain.write { db in try db.execute(sql: "DELETE FROM linkedPassage WHERE comicID = 2347") }
        for _ in 1...2 { #expect(try nearest() == [327: 0.6, 9999: 0.6]) }
        #expect(database.linkedPassageCache.isKept)
        // A comic removed: its passage no longer counts, on the kept path too.
        try plain.write { db in try db.execute(sql: "DELETE FROM comic WHERE id = 9999") }
        for _ in 1...2 { #expect(try nearest() == [327: 0.6]) }
        #expect(database.linkedPassageCache.isKept)
        // A file given again unchanged writes nothing, so what is kept stays kept.
        _ = try other.replaceLinkedPassages(Self.passages.filter { $0.text != "second passage" && $0.comic != 2347 })
        #expect(database.linkedPassageCache.isKept)
        #expect(try nearest() == [327: 0.6])
        #expect(database.linkedPassageCache.isKept)
    }

    /// An index of v16, with linked passages and no notion of written ones, is brought up to
    /// date: its passages are linked ones, the version is there, and a change raises it.
    @Test func anIndexOfV16GetsTheKindAndTheVersion() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-v16-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        do {
            let database = try ComicDatabase.open(at: path)
            _ = try database.replaceLinkedPassages(Self.passages)
        }
        // What v16 left: no column `written`, no version, no triggers, no later migrations.
        try DatabaseQueue(path: path).write { db in
            try db.execute(
                sql: """
                    DROP TRIGGER linkedPassageInsertRaisesLinkedPassagesVersion;
                    DROP TRIGGER linkedPassageUpdateRaisesLinkedPassagesVersion;
                    DROP TRIGGER linkedPassageDeleteRaisesLinkedPassagesVersion;
                    DROP TRIGGER comicInsertRaisesLinkedPassagesVersion;
                    DROP TRIGGER comicDeleteRaisesLinkedPassagesVersion;
                    ALTER TABLE linkedPassage DROP COLUMN written;
                    DELETE FROM setting WHERE key = 'linkedPassagesVersion';
                    DELETE FROM grdb_migrations WHERE identifier IN ('v17-linked-passages-version', 'v18-written-situations');
                    """)
        }
        let database = try ComicDatabase.open(at: path)
        try Self.embedAll(database)
        #expect(try database.embeddedLinkedPassageCounts(model: "m") == (linked: 4, written: 0))
        let version = {
            try DatabaseQueue(path: path).read { db in
                try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'linkedPassagesVersion'")
            }
        }
        let before = try #require(try version())
        _ = try database.replaceLinkedPassages(Array(Self.passages.dropLast()))
        #expect(try version() != before)
    }
}
