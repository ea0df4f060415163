import Foundation
import GRDB
import Testing
import XKCDModel

@testable import XKCDStore

/// The passages people linked comics to, as the index keeps them (``LinkedPassage``): replaced
/// by a new file without losing the vectors of those that stay, and compared with a query by the
/// nearest passage of each comic.
@Suite struct LinkedPassageStoreTests {
    private static let passages = [
        LinkedPassage(comic: 1, text: "first passage", source: "https://a.example/1"),
        LinkedPassage(comic: 1, text: "second passage", source: "https://b.example/2"),
        LinkedPassage(comic: 2, text: "third passage", source: "https://a.example/3"),
    ]

    /// A unit vector of `dimensions` floats pointing along `axis`.
    private static func axis(_ axis: Int, dimensions: Int = 4) -> [Float] {
        (0..<dimensions).map { $0 == axis ? 1 : 0 }
    }

    private static func embedAll(_ database: ComicDatabase, model: String = "m") throws {
        let pending = try database.linkedPassagesToEmbed(model: model, dimensions: 4)
        try database.storeLinkedPassageVectors(
            pending.map { passage in
                // Each passage's vector from its text, so that the tests know which is where.
                (
                    passage.id,
                    passage.text.hasPrefix("first") ? axis(0) : passage.text.hasPrefix("second") ? axis(1) : axis(2)
                )
            }, model: model)
    }

    @Test func aNewFileKeepsTheVectorsOfThePassagesThatStay() throws {
        let database = try ComicDatabase.inMemory()
        #expect(try database.replaceLinkedPassages(Self.passages) == (added: 3, deleted: 0))
        #expect(try database.linkedPassagesToEmbed(model: "m", dimensions: 4).count == 3)
        try Self.embedAll(database)
        #expect(try database.linkedPassagesToEmbed(model: "m", dimensions: 4).isEmpty)
        #expect(try database.linkedPassageCounts(model: "m") == (passages: 3, embedded: 3))
        // The same file again: nothing to embed. One passage gone and one new: only it.
        #expect(try database.replaceLinkedPassages(Self.passages) == (added: 0, deleted: 0))
        var changed = Array(Self.passages.dropLast())
        changed.append(LinkedPassage(comic: 3, text: "fourth passage", source: "https://c.example/4"))
        #expect(try database.replaceLinkedPassages(changed) == (added: 1, deleted: 1))
        #expect(try database.linkedPassagesToEmbed(model: "m", dimensions: 4).map(\.text) == ["fourth passage"])
        // Another model, or another length of vector, embeds them all again.
        #expect(try database.linkedPassagesToEmbed(model: "other", dimensions: 4).count == 3)
        #expect(try database.linkedPassagesToEmbed(model: "m", dimensions: 8).count == 3)
    }

    @Test func eachComicCountsItsNearestPassageLeavingOutSourcesAskedTo() throws {
        let database = try ComicDatabase.inMemory()
        _ = try database.replaceLinkedPassages(Self.passages)
        try Self.embedAll(database)
        let query: [Float] = [0.6, 0.8, 0, 0]
        let nearest = try database.reading { try $0.linkedPassageSimilarities(to: query, model: "m") }
        #expect(nearest == [1: 0.8, 2: 0])
        let without = try database.reading {
            try $0.linkedPassageSimilarities(to: query, model: "m", excludingSources: ["https://b.example/2"])
        }
        #expect(without == [1: 0.6, 2: 0])
        // Vectors of another model, or of another length, are no vectors of this query's.
        #expect(try database.reading { try $0.linkedPassageSimilarities(to: query, model: "other") }.isEmpty)
        #expect(try database.reading { try $0.linkedPassageSimilarities(to: query + query, model: "m") }.isEmpty)
    }
}
