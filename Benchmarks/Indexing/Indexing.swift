import Benchmark
import Foundation
import Logging
import XKCDIndexer
import XKCDKit

/// A full index build from the offline mirror into a fresh database file.
///
/// Setup only finds the corpus (`../shared/corpus`, else the extracted snapshot of
/// `make snapshot-dir`) and makes a temporary directory. Each iteration opens a new database file
/// there unmeasured, then measures `Indexer.run()`: reading and parsing every comic and
/// explanation, the batched inserts, the full-text optimise and the ranking-index rebuild at the end.
let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "Index the full corpus",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident],
            timeUnits: .milliseconds,
            warmupIterations: 0,
            scalingFactor: .one,
            maxDuration: .seconds(60),
            maxIterations: 3
        )
    ) { benchmark, fixture in
        let path = workDirectory.appendingPathComponent("index-\(benchmark.currentIteration).sqlite").path
        defer { removeDatabase(at: path) }
        let database = try ComicDatabase.open(at: path)
        let indexer = Indexer(
            database: database, source: MirrorComicSource(directory: fixture.corpus),
            logger: Logger(label: "xkcd-search.benchmark", factory: { _ in SwiftLogNoOpLogHandler() }))
        benchmark.startMeasurement()
        let report = try await indexer.run()
        benchmark.stopMeasurement()
        guard report.failures.isEmpty else {
            throw IndexingFailed(failures: report.failures.count)
        }
        blackHole(report)
    } setup: {
        try Fixture()
    } teardown: {
        try? FileManager.default.removeItem(at: workDirectory)
    }
}

private struct Fixture: Sendable {
    var corpus: URL

    init() throws {
        corpus = try corpusDirectory()
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        print("Indexing: corpus \(corpus.path), databases in \(workDirectory.path)")
    }
}

/// A directory of this process's own, removed at teardown.
private let workDirectory = FileManager.default.temporaryDirectory
    .appendingPathComponent("xkcd-search-bench-\(ProcessInfo.processInfo.processIdentifier)")

private func removeDatabase(at path: String) {
    for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
    }
}

private struct IndexingFailed: Error, CustomStringConvertible {
    var failures: Int
    var description: String { "index build left \(failures) failures" }
}

/// The offline mirror: `../../shared/corpus` next to the checkout, else the repository's
/// extracted snapshot (`make snapshot-dir`).
private func corpusDirectory() throws -> URL {
    let benchmarks = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let candidates = [
        benchmarks.appendingPathComponent("../../shared/corpus").standardizedFileURL,
        benchmarks.appendingPathComponent("../.build/snapshot").standardizedFileURL,
    ]
    for candidate in candidates
    where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("xkcd/info.0.json").path) {
        return candidate
    }
    throw CorpusMissing(searched: candidates.map(\.path))
}

private struct CorpusMissing: Error, CustomStringConvertible {
    var searched: [String]
    var description: String {
        "no corpus mirror found (looked in \(searched.joined(separator: ", "))); run `make snapshot-dir` first"
    }
}
