// One embedding as a whole process: start, map the model, embed the text given, print the
// vector's first components. Timed by hyperfine for the figures of docs/semantic-search.md (the
// start-up cost of the model, the OpenBLAS variants, the weight layouts); built like the release.
//
// usage: EmbedOnce TEXT        (the model from XKCD_SEARCH_MODEL or beside the executable)
import Foundation
import XKCDEmbed

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: EmbedOnce TEXT\n".utf8))
    exit(2)
}
guard let directory = SentenceEncoder.locateModel() else {
    FileHandle.standardError.write(Data("no sentence-embedding model\n".utf8))
    exit(1)
}
do {
    let encoder = try SentenceEncoder(modelDirectory: directory)
    let vector = encoder.embedding(for: CommandLine.arguments[1])
    print(encoder.identity, vector.prefix(4).map { String(format: "%.5f", $0) }.joined(separator: " "))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
