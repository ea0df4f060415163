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
        #expect(try database.embeddedLinkedPassageCount(model: "m") == 4)
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
        #expect(try database.embeddedLinkedPassageCount(model: "m") == 4)
        let query: [Float] = [0, 1, 0, 0]
        let moved = try database.reading {
            try $0.linkedPassageSimilarities(to: query, model: "m", excludingSources: ["https://b.example/moved"])
        }
        #expect(moved[327] == 0, "the second passage, at its new source, is left out: \(moved)")
    }

    @Test func eachComicCountsItsNearestPassageLeavingOutSourcesAskedTo() throws {
        let database = try Self.index()
        _ = try database.replaceLinkedPassages(Self.passages)
        try Self.embedAll(database)
        let query: [Float] = [0.6, 0.8, 0, 0]
        // #9999's passage is near too (0.6), but the index holds no such comic.
        let nearest = try database.reading { try $0.linkedPassageSimilarities(to: query, model: "m") }
        #expect(nearest == [327: 0.8, 2347: 0])
        let without = try database.reading {
            try $0.linkedPassageSimilarities(to: query, model: "m", excludingSources: ["https://b.example/2"])
        }
        #expect(without == [327: 0.6, 2347: 0])
        // Vectors of another model, or of another length, are no vectors of this query's.
        #expect(try database.reading { try $0.linkedPassageSimilarities(to: query, model: "other") }.isEmpty)
        #expect(try database.reading { try $0.linkedPassageSimilarities(to: query + query, model: "m") }.isEmpty)
    }
}
