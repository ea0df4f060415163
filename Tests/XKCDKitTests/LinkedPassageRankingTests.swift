import Foundation
import Testing
import XKCDIndexer
import _XKCDTestSupport

@testable import XKCDKit
@testable import XKCDStore

/// Passages people linked comics to (``LinkedPassage``), on a fixture index of their own: a
/// passage near one someone linked a comic to lifts that comic, with that reason.
@Suite("Passages: comics people linked to passages like it")
struct LinkedPassageRankingTests {
    /// A situation with nothing of #1116 (Traffic Lights) in its words or its meaning, linked to
    /// it by someone, and another passage about the same situation in other words.
    static let linked = LinkedPassage(
        comic: 1116,
        text: "The deploy script fails without a word whenever the disk fills up, and nobody notices for weeks.",
        source: "https://example.org/thread/1")
    static let passage = "Our deploy script fails silently each time the disk is full, and for weeks nobody notices."
    /// A situation written for #1190 (Time) with nothing of it in its words or meaning, and a
    /// passage about the same situation in other words.
    static let written = LinkedPassage(
        comic: 1190, text: "Every spreadsheet at the office breaks when someone types a date in the American order.",
        source: "snapshot/written-situations.tsv", isWritten: true)
    static let writtenPassage = "Each of our spreadsheets falls apart whenever a colleague enters dates month first."

    /// The fixture index embedded, with the linked passage and the written one embedded too;
    /// built once.
    private static let index = Task { () throws -> (ComicDatabase, SentenceModel) in
        let database = try await makeFixtureIndex()
        let model = try realSentenceModel()
        let indexer = VectorIndexer(database: database, encoder: try model.encoder().get(), width: 1)
        _ = try await indexer.run()
        _ = try database.replaceLinkedPassages([linked, written])
        let embedded = try await indexer.embedLinkedPassages()
        #expect(embedded.linked == 1 && embedded.written == 1, "\(embedded)")
        return (database, model)
    }

    @Test func aPassageNearALinkedOneLiftsItsComicAndSaysWhy() async throws {
        let (database, model) = try await Self.index.value
        let engine = SearchEngine(database: database, sentenceModel: model)
        let lifted = try engine.relevant(to: Self.passage)
        let first = try #require(lifted.results.first)
        #expect(first.id == 1116, "\(lifted.results.map(\.id))")
        let similarity = try #require(first.linkedPassageSimilarity)
        #expect(similarity > 0.6 && similarity <= 1, "\(similarity)")
        #expect(first.liftedBy.contains("someone linked it to a passage like this one"), "\(first.liftedBy)")
        #expect(first.writtenSituationSimilarity == nil)
        // Without it (its source left out, or no weight), #1116 has nothing to rank by.
        var settings = RelevantSettings()
        settings.excludedLinkedSources = [Self.linked.source]
        let leftOut = try engine.relevant(to: Self.passage, settings: settings)
        #expect(leftOut.results.first?.id != 1116 && leftOut.results.allSatisfy { $0.linkedPassageSimilarity == nil })
        settings = RelevantSettings()
        settings.linkedPassageWeight = 0
        #expect(
            try engine.relevant(to: Self.passage, settings: settings).results.map(\.id) == leftOut.results.map(\.id))
        // A search of a pasted passage ranks it the same way.
        let searched = try engine.search(Self.passage + " We only find out when a customer writes in about it.")
        #expect(searched.results.first?.id == 1116, "\(searched.results.map(\.id))")
    }

    /// A comic linked to a passage like this one joins the ranked comics even when neither its
    /// words nor its meaning made it one: here no word is looked up and none of the comics
    /// nearest in meaning is asked for, so it is the only one.
    @Test func aComicLinkedToALikePassageJoinsTheCandidates() async throws {
        let (database, model) = try await Self.index.value
        let engine = SearchEngine(database: database, sentenceModel: model)
        var settings = RelevantSettings()
        (settings.words, settings.nearest) = (0, 0)
        #expect(try engine.relevant(to: Self.passage, settings: settings).results.map(\.id) == [1116])
        settings.linkedPassageWeight = 0
        #expect(try engine.relevant(to: Self.passage, settings: settings).results.isEmpty)
    }

    /// A passage about something else gains nothing from it: under the threshold, no lift.
    @Test func aPassageAboutSomethingElseGainsNothing() async throws {
        let (database, model) = try await Self.index.value
        let engine = SearchEngine(database: database, sentenceModel: model)
        let other = "My password has to change every month, so I keep adding one to the number at its end."
        let found = try engine.relevant(to: other, limit: 40)
        #expect(
            found.results.allSatisfy { $0.linkedPassageSimilarity == nil && $0.writtenSituationSimilarity == nil },
            "\(found.results)")
    }

    /// A situation written for a comic lifts it as a linked passage does, by a weight of its own,
    /// and the reason says which: no one linked it.
    @Test func aPassageNearAWrittenSituationLiftsItsComicAndSaysWhy() async throws {
        let (database, model) = try await Self.index.value
        let engine = SearchEngine(database: database, sentenceModel: model)
        let lifted = try engine.relevant(to: Self.writtenPassage)
        let first = try #require(lifted.results.first)
        #expect(first.id == 1190, "\(lifted.results.map(\.id))")
        let similarity = try #require(first.writtenSituationSimilarity)
        #expect(similarity > 0.6 && similarity <= 1, "\(similarity)")
        #expect(first.linkedPassageSimilarity == nil)
        #expect(first.writtenSituation == Self.written.text)
        #expect(
            first.liftedBy.contains(
                "a situation written for it is like this one: \u{201C}\(Self.written.text)\u{201D}"),
            "\(first.liftedBy)")
        #expect(!first.liftedBy.contains("someone linked it to a passage like this one"), "\(first.liftedBy)")
        // The linked passages' weight does not move it; its own does.
        var settings = RelevantSettings()
        settings.linkedPassageWeight = 0
        #expect(try engine.relevant(to: Self.writtenPassage, settings: settings).results.first?.id == 1190)
        settings = RelevantSettings()
        settings.writtenSituationWeight = 0
        let without = try engine.relevant(to: Self.writtenPassage, settings: settings)
        #expect(without.results.first?.id != 1190, "\(without.results.map(\.id))")
        #expect(without.results.allSatisfy { $0.writtenSituationSimilarity == nil && $0.writtenSituation == nil })
    }
}

/// What the comics near a passage by linked passages and written situations gain, and which of
/// them join the candidates: each kind by its own weight and threshold, added together.
@Suite struct NearLinkedPassagesTests {
    @Test func eachKindGainsByItsOwnWeightAndThresholdAddedTogether() {
        var settings = RelevantSettings()
        (settings.linkedPassageWeight, settings.linkedPassageThreshold) = (1, 0.2)
        (settings.writtenSituationWeight, settings.writtenSituationThreshold) = (3, 0.35)
        let near = NearLinkedPassages(linked: [1: 0.5], written: [1: 0.6, 2: 0.4])
        let bonuses = near.bonuses(settings)
        #expect(bonuses.keys.sorted() == [1, 2])
        #expect(abs(bonuses[1, default: 0] - (0.3 + 0.75)) < 1e-9, "\(bonuses)")
        #expect(abs(bonuses[2, default: 0] - 0.15) < 1e-9, "\(bonuses)")
    }

    @Test func everyLinkedComicJoinsAndOnlyTheNearestWrittenOnes() {
        let near = NearLinkedPassages(linked: [7: 0.4], written: [1: 0.5, 2: 0.9, 3: 0.7, 7: 0.31])
        #expect(near.joining(writtenAtMost: 2) == [2, 3, 7])
        #expect(near.joining(writtenAtMost: 0) == [7])
        #expect(near.joining(writtenAtMost: 10) == [1, 2, 3, 7])
    }
}
