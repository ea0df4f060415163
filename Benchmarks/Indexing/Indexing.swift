import Benchmark
import BenchmarkSupport
import Foundation
import Logging
import XKCDIndexer
import XKCDKit
import XKCDStore

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
