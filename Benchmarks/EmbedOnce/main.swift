// One embedding as a whole process: start, map the model, embed the text given, print the
// vector's first components. Timed by hyperfine for the figures of docs/semantic-search.md (the
// start-up cost of the model, the OpenBLAS variants, the weight layouts); built like the release.
// With a repeat count, it embeds the text that many times more and prints the median and the
// 99th percentile of those, a quick in-process figure beside the Embed benchmark's.
//
// usage: EmbedOnce TEXT [REPEAT]    (the model from XKCD_SEARCH_MODEL or beside the executable)
import Foundation
import XKCDEmbed

let arguments = CommandLine.arguments
guard arguments.count == 2 || arguments.count == 3, let repeats = Int(arguments.count == 3 ? arguments[2] : "0") else {
    FileHandle.standardError.write(Data("usage: EmbedOnce TEXT [REPEAT]\n".utf8))
    exit(2)
}
guard let directory = SentenceEncoder.locateModel() else {
    FileHandle.standardError.write(Data("no sentence-embedding model\n".utf8))
    exit(1)
}
do {
    let encoder = try SentenceEncoder(modelDirectory: directory)
    let vector = encoder.embedding(for: arguments[1])
    print(encoder.identity, vector.prefix(4).map { String(format: "%.5f", $0) }.joined(separator: " "))
    if repeats > 0 {
        let clock = ContinuousClock()
        let times = (0..<repeats).map { _ in clock.measure { _ = encoder.embedding(for: arguments[1]) } }.sorted()
        print("tokens \(encoder.tokenIDs(for: arguments[1]).count) p50 \(times[repeats / 2]) p99 \(times[repeats * 99 / 100])")
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
