import Benchmark
import Foundation
import XKCDEmbed

/// In-process time to embed a query with `SentenceEncoder.embedding(for:)` (tokenizing, the
/// six-layer encoder, pooling), for 5-, 12- and 25-word queries, and for one passage long enough
/// to be cut at the model's 256 tokens, as the indexer embeds each comic.
///
/// The model is the one `SentenceEncoder.locateModel()` finds: `make benchmarks` sets
/// `XKCD_SEARCH_MODEL` to the directory `make model` wrote. Loading it is setup, not measured;
/// Benchmarks/EmbedOnce measures a whole process. Each is measured three times over the same int8
/// weights: in int8 with the weights packed into oneDNN's layout, as a process's second pass on
/// reads them (where the processor has VNNI; elsewhere the setup says so and it is float32 too);
/// in int8 with the weights as stored, as a one-shot search's single pass reads them; and with the
/// weights widened to float32, which is what a processor without VNNI runs.
let benchmarks: @Sendable () -> Void = {
    for arithmetic in [Arithmetic.fastest, .int8WeightsAsStored, .float32] {
        embeddingBenchmarks(arithmetic)
    }
}

private func embeddingBenchmarks(_ arithmetic: Arithmetic) {
    let name =
        switch arithmetic {
        case .fastest: "int8"
        case .int8WeightsAsStored: "int8 as stored"
        case .float32: "float32"
        }
    let queries = [
        (5, "neural network learned wrong thing"),
        (12, "the one where the neural network learned the wrong thing from data"),
        (
            25,
            "a comic where someone explains that one tiny open source project maintained by a single "
                + "person in Nebraska holds up all of modern digital infrastructure"
        ),
    ]
    for (words, query) in queries {
        precondition(query.split(separator: " ").count == words, "benchmark programmer error: \(query)")
        Benchmark(
            "Embed \(words)-word query, \(name)",
            configuration: .init(
                metrics: [.wallClock, .peakMemoryResident],
                timeUnits: .microseconds,
                warmupIterations: 10,
                scalingFactor: .one,
                maxDuration: .seconds(10),
                maxIterations: 2_000
            )
        ) { benchmark, encoder in
            blackHole(encoder.embedding(for: query))
        } setup: {
            try loadEncoder(arithmetic)
        }
    }

    Benchmark(
        "Embed 256-token passage, \(name)",
        configuration: .init(
            metrics: [.wallClock],
            timeUnits: .milliseconds,
            warmupIterations: 2,
            scalingFactor: .one,
            maxDuration: .seconds(15),
            maxIterations: 200
        )
    ) { benchmark, encoder in
        blackHole(encoder.embedding(for: passage))
    } setup: {
        let encoder = try loadEncoder(arithmetic)
        precondition(encoder.tokenIDs(for: passage).count == encoder.maximumTokens, "the passage must fill the model")
        return encoder
    }
}

private struct NoModel: Error, CustomStringConvertible {
    var description: String { "no sentence-embedding model: run `make model`, or set XKCD_SEARCH_MODEL" }
}

private func loadEncoder(_ arithmetic: Arithmetic) throws -> SentenceEncoder {
    guard let directory = SentenceEncoder.locateModel() else { throw NoModel() }
    let encoder = try SentenceEncoder(modelDirectory: directory, arithmetic: arithmetic)
    // The model's check was the first pass: this one packs the weights (with `fastest`).
    _ = encoder.embedding(for: "warm")
    if arithmetic != .float32, !encoder.runsInt8 {
        print("note: no int8 here (the model is not int8, or the processor lacks VNNI): measuring float32")
    }
    return encoder
}

/// More than 256 tokens of prose in the manner of a comic's explanation.
private let passage = String(
    repeating: """
        The comic shows a person at a whiteboard explaining a plan to sort ten years of receipts by \
        colour, scan them into a spreadsheet and laminate the printout. Someone asks why the receipts \
        cannot stay in their shoebox. The plan grows to fill a wall, with a satellite, two llamas and \
        a sub-committee that names the other sub-committees, while the audience falls asleep. In the \
        last panel the shoebox sits untouched on a shelf, labelled as the archive. 
        """, count: 3)
