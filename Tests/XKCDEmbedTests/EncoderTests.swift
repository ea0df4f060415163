import Foundation
import Testing
import XKCDEmbed
import _XKCDTestSupport

/// The reference that sentence-transformers computed (`scripts/reference-embeddings.py`).
struct Reference: Decodable {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let text: String
        let tokenIDs: [Int32]
        let embedding: [Float]

        var testDescription: String { String(reflecting: String(text.prefix(40))) }
    }

    let maximumTokens: Int
    let cases: [Case]

    static let shared: Reference = {
        do {
            return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: Fixtures.embeddingReferenceURL))
        } catch {
            fatalError("cannot read \(Fixtures.embeddingReferenceURL.path): \(error)")
        }
    }()
}

/// The real model, found as the executables find it. `make test` runs `make model` first, so a
/// missing model is a failure, never a skipped test.
func realModelDirectory() throws -> URL {
    try #require(
        SentenceEncoder.locateModel(),
        "no sentence-embedding model found: run `make model` (or set XKCD_SEARCH_MODEL to a model directory)")
}

private let sharedEncoder = Result { () throws(EmbedError) -> SentenceEncoder? in
    guard let directory = SentenceEncoder.locateModel() else { return nil }
    return try SentenceEncoder(modelDirectory: directory)
}

func realEncoder() throws -> SentenceEncoder {
    _ = try realModelDirectory()
    return try #require(try sharedEncoder.get())
}

/// The real model with its int8 weights widened to float32 (``Arithmetic/float32``).
private let sharedFloatEncoder = Result { () throws(EmbedError) -> SentenceEncoder? in
    guard let directory = SentenceEncoder.locateModel() else { return nil }
    return try SentenceEncoder(modelDirectory: directory, arithmetic: .float32)
}

/// The lowest cosine an embedding may have with sentence-transformers' float32 one: int8 weights
/// and activations cost up to 0.005 on the shortest texts (docs/int8.md), where the float32
/// layouts kept 0.999.
let referenceCosineBound: Float = 0.99

/// Whether this processor has the VNNI instructions that oneDNN's int8 products need to be fast
/// and exact, as the kernel reports them (not as oneDNN does, which the encoder asks).
func processorHasVNNI() throws -> Bool {
    let flags = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        .split(separator: "\n").first { $0.hasPrefix("flags") }
    let words = Set((flags ?? "").split(separator: " ").map(String.init))
    return words.contains("avx512_vnni") || words.contains("avx_vnni")
}

func cosine(_ a: [Float], _ b: [Float]) -> Float {
    var (dot, normA, normB): (Float, Float, Float) = (0, 0, 0)
    for (x, y) in zip(a, b) {
        dot += x * y
        normA += x * x
        normB += y * y
    }
    return dot / (normA.squareRoot() * normB.squareRoot())
}

/// Serialized: each test embeds (or copies the model) without awaiting, holding one of Swift's
/// few task threads the while; run side by side they held them all for seconds, and every async
/// test of the process (the fixture server, timed HTTP requests) stalled behind them.
@Suite(.serialized) struct EncoderTests {
    @Test func describesTheModel() throws {
        let encoder = try realEncoder()
        #expect(encoder.dimensions == 384)
        #expect(encoder.maximumTokens == Reference.shared.maximumTokens)
        #expect(encoder.identity.hasPrefix("all-MiniLM-L6-v2/"))
    }

    @Test(arguments: Reference.shared.cases)
    func tokenIDsMatchTheReference(_ reference: Reference.Case) throws {
        let encoder = try realEncoder()
        let ids = encoder.tokenIDs(for: reference.text)
        #expect(ids == reference.tokenIDs, "produced \(ids), expected \(reference.tokenIDs)")
        #expect(ids.count <= encoder.maximumTokens)
    }

    /// Each text's vector near the one sentence-transformers made with the float32 model the
    /// int8 one was converted from, computed in int8 (where this processor has VNNI) and with the
    /// weights widened to float32.
    @Test(arguments: Reference.shared.cases)
    func embeddingMatchesTheReference(_ reference: Reference.Case) throws {
        for encoder in [try realEncoder(), try #require(try sharedFloatEncoder.get())] {
            let embedding = encoder.embedding(for: reference.text)
            #expect(embedding.count == reference.embedding.count)
            let similarity = cosine(embedding, reference.embedding)
            #expect(
                similarity >= referenceCosineBound,
                "cosine \(similarity) with the reference (int8: \(encoder.runsInt8))")
            let length = embedding.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(length - 1) < 1e-4, "length \(length)")
        }
    }

    /// The int8 products run exactly where the processor has VNNI; elsewhere, and when float32
    /// is asked for, the weights are widened (an AVX2 machine without VNNI would get wrong
    /// int8 products from oneDNN: docs/int8.md).
    @Test func int8RunsWhereTheProcessorHasVNNI() throws {
        #expect(try realEncoder().runsInt8 == processorHasVNNI())
        #expect(try #require(try sharedFloatEncoder.get()).runsInt8 == false)
    }

    /// int8 and float32 arithmetic over the same weights agree closely on every text: the
    /// activations' quantisation, the only difference, costs little.
    @Test func int8AndFloat32ArithmeticAgree() throws {
        let (fastest, widened) = (try realEncoder(), try #require(try sharedFloatEncoder.get()))
        let texts = Reference.shared.cases.map(\.text)
        let similarities = zip(fastest.embeddings(for: texts), widened.embeddings(for: texts)).map(cosine)
        let lowest = try #require(similarities.min())
        #expect(lowest >= referenceCosineBound, "lowest cosine \(lowest)")
    }

    /// From its second pass on, an encoder reads its int8 weights packed into oneDNN's layout
    /// (packed by the project's own loop, docs/int8.md): the vectors are those of the weights as
    /// stored, to the bit, on every text and on a batch of them. A wrong place for one weight, or
    /// a wrong column sum, would move every vector.
    @Test func packedWeightsMakeTheVectorsOfTheStoredOnes() throws {
        let directory = try realModelDirectory()
        let texts = Reference.shared.cases.map(\.text)
        let asStored = try SentenceEncoder(modelDirectory: directory, arithmetic: .int8WeightsAsStored)
        // One pass (the check's, with a text, as a one-shot search makes) reads the weights as
        // stored; the next packs them.
        let (packing, first) = try SentenceEncoder.open(modelDirectory: directory, embedding: [texts[0]])
        #expect(!packing.readsPackedWeights)
        let packed = texts.map { packing.embedding(for: $0) }
        #expect(packing.readsPackedWeights == (try processorHasVNNI()))
        #expect(!asStored.readsPackedWeights)
        let expected = texts.map { asStored.embedding(for: $0) }
        #expect(first == [expected[0]])
        for (index, text) in texts.enumerated() {
            #expect(packed[index] == expected[index], "text \(index): \(text.prefix(40))")
        }
        #expect(packing.embeddings(for: texts) == asStored.embeddings(for: texts))
    }

    /// Unrelated texts are far apart and a paraphrase is near: the vectors carry meaning, not noise
    /// that happens to match.
    @Test func paraphrasesAreCloserThanUnrelatedTexts() throws {
        let encoder = try realEncoder()
        let query = encoder.embedding(for: "a comic about a tiny project that all modern software depends on")
        let near = encoder.embedding(for: "all of today's digital infrastructure rests on one small library")
        let far = encoder.embedding(for: "velociraptors in the kitchen")
        #expect(cosine(query, near) > cosine(query, far) + 0.2)
    }

    /// Texts embedded together share each pass over the weights, and each attends only to its
    /// own tokens: they make the vectors each makes alone, opened with the model too (in the
    /// pass of the model's check).
    @Test func textsEmbeddedTogetherMakeTheVectorsEachMakesAlone() throws {
        let encoder = try realEncoder()
        // Longer together than one pass takes: they are split between passes.
        let texts = Reference.shared.cases.map(\.text)
        let alone = texts.map { encoder.embedding(for: $0) }
        let together = encoder.embeddings(for: texts)
        let opened = try SentenceEncoder.open(modelDirectory: try realModelDirectory(), embedding: texts).vectors
        #expect(together.count == texts.count && opened.count == texts.count)
        for (index, vector) in alone.enumerated() {
            #expect(cosine(vector, together[index]) > 0.99999, "\(texts[index].prefix(40))")
            #expect(cosine(vector, opened[index]) > 0.99999, "\(texts[index].prefix(40))")
        }
    }

    @Test func embedsOnSeveralThreadsAtOnce() async throws {
        let encoder = try realEncoder()
        // Each text twice, so that tasks meet the same token count at once (the encoder makes its
        // matrix products for a count on first use and keeps them).
        let some = Reference.shared.cases.map(\.text).filter { !$0.isEmpty }.prefix(12)
        let texts = Array(some + some)
        let serial = texts.map { encoder.embedding(for: $0) }
        // A second encoder, which has made nothing yet: its tasks make the products at once.
        let fresh = try realEncoder()
        let parallel = await withTaskGroup(of: (Int, [Float]).self) { group in
            for (index, text) in texts.enumerated() {
                group.addTask { (index, fresh.embedding(for: text)) }
            }
            var results = [[Float]](repeating: [], count: texts.count)
            for await (index, vector) in group { results[index] = vector }
            return results
        }
        // One thread per call and the same kernels: the very same floats.
        for (one, other) in zip(serial, parallel) {
            #expect(one == other)
        }
    }
}
