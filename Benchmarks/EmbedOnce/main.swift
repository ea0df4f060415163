// One embedding as a whole process: start, map the model, embed the text given (in the pass that
// checks the model, as a one-shot search does), print the vector's first components. Timed by hyperfine for the figures of docs/semantic-search.md (the
// start-up cost of the model, the matrix libraries, the weight layouts); built like the release.
// With a repeat count, it embeds the text that many times more and prints the median and the
// 99th percentile of those, a quick in-process figure beside the Embed benchmark's. With a thread
// count as well, that many threads embed REPEAT times each at once, through one encoder, and it
// prints queries per second of wall time and per second of the process's CPU time (per core).
//
// usage: EmbedOnce TEXT [REPEAT [THREADS]]    (the model from XKCD_SEARCH_MODEL or beside the executable)
import Foundation
import XKCDEmbed

let arguments = CommandLine.arguments
guard (2...4).contains(arguments.count), let repeats = Int(arguments.count >= 3 ? arguments[2] : "0"),
    let threads = Int(arguments.count == 4 ? arguments[3] : "0")
else {
    FileHandle.standardError.write(Data("usage: EmbedOnce TEXT [REPEAT [THREADS]]\n".utf8))
    exit(2)
}
guard let directory = SentenceEncoder.locateModel() else {
    FileHandle.standardError.write(Data("no sentence-embedding model\n".utf8))
    exit(1)
}
do {
    // Opened and checked in the same pass as the text is embedded, as a one-shot search does.
    let (encoder, vectors) = try SentenceEncoder.open(modelDirectory: directory, embedding: [arguments[1]])
    let vector = vectors[0]
    print(encoder.identity, vector.prefix(4).map { String(format: "%.5f", $0) }.joined(separator: " "))
    if threads > 0 {
        let text = arguments[1]
        func cpuSeconds() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
                usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let (startCPU, start) = (cpuSeconds(), Date())
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<repeats { _ = encoder.embedding(for: text) }
        }
        let (cpu, wall) = (cpuSeconds() - startCPU, Date().timeIntervalSince(start))
        let count = Double(threads * repeats)
        print(
            String(
                format: "threads %d queries %d: %.0f per second of wall time, %.0f per CPU-second", threads,
                threads * repeats, count / wall, count / cpu))
    } else if repeats > 0 {
        let clock = ContinuousClock()
        let times = (0..<repeats).map { _ in clock.measure { _ = encoder.embedding(for: arguments[1]) } }.sorted()
        print(
            "tokens \(encoder.tokenIDs(for: arguments[1]).count) p50 \(times[repeats / 2]) p99 \(times[repeats * 99 / 100])"
        )
    }
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
