import Benchmark
import BenchmarkSupport
import Foundation
import Logging
import XKCDFiles
import XKCDIndexer
import XKCDKit
import XKCDStore

/// In-process latency of `SearchEngine.search(_:limit:)` (first page of 10, with snippets) on the
/// full index.
///
/// Setup builds the index from the offline mirror into a temporary file (`../shared/corpus`, else
/// the extracted snapshot of `make snapshot-dir`), or opens the file `XKCD_BENCH_DB` names, then
/// assembles a fixed mix of queries: the 50 queries of `../shared/eval/dev.tsv` and ones generated
/// from the index itself with a fixed seed (words, phrases, prefixes, filters, exclusions, OR and
/// typos), so runs compare. One iteration is one query, taken round-robin from the mix, so the
/// wall-clock percentiles are per-query latencies. "Search query mix" times all of them; one
/// benchmark per kind ("Search typos", …) shows which kind makes the tail. Each benchmark runs in
/// its own process and so builds its own index (about 10 s) unless `XKCD_BENCH_DB` is set.
/// `XKCD_BENCH_PRINT_QUERIES=1` prints the queries.
let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "Search query mix",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident],
            timeUnits: .microseconds,
            warmupIterations: 0,
            scalingFactor: .one,
            maxDuration: .seconds(60),
            maxIterations: 2_000
        )
    ) { benchmark, fixture in
        try search(fixture, benchmark: benchmark)
    } setup: {
        try await Fixture(kind: nil)
    } teardown: {
        removeTemporaryIndex()
    }

    // The same measurement per kind of query, to see which kind makes the tail.
    for kind in QueryKind.allCases {
        Benchmark(
            "Search \(kind.rawValue)",
            configuration: .init(
                metrics: [.wallClock],
                timeUnits: .microseconds,
                warmupIterations: 0,
                scalingFactor: .one,
                maxDuration: .seconds(15),
                maxIterations: 500
            )
        ) { benchmark, fixture in
            try search(fixture, benchmark: benchmark)
        } setup: {
            try await Fixture(kind: kind)
        } teardown: {
            removeTemporaryIndex()
        }
    }
}

/// One iteration: the next query of the mix, first page of 10 with snippets.
private func search(_ fixture: Fixture, benchmark: Benchmark) throws {
    let query = fixture.queries[benchmark.currentIteration % fixture.queries.count]
    benchmark.startMeasurement()
    let results = try fixture.engine.search(query, limit: 10)
    benchmark.stopMeasurement()
    blackHole(results)
}

private enum QueryKind: String, CaseIterable, Sendable {
    case dev, words, phrases, prefixes, filters, exclusions, or, typos
    /// Descriptions in people's own words (Relevance/descriptions.tsv): the queries ranked by meaning.
    case descriptions
}

/// Where setup builds the index when `XKCD_BENCH_DB` is not set; each benchmark runs in its own process.
private let temporaryIndexPath = FileManager.default.temporaryDirectory
    .appendingPathComponent("xkcd-search-bench-\(ProcessInfo.processInfo.processIdentifier).sqlite").path

private func removeTemporaryIndex() {
    for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: temporaryIndexPath + suffix)
    }
}

private struct Fixture: Sendable {
    var engine: SearchEngine
    var queries: [String]

    /// The index and the queries of one kind, or the whole mix when `kind` is nil.
    init(kind: QueryKind?) async throws {
        // Searched through one read-only connection, as `xkcd-search search` searches it. The
        // REPL's pool costs a read a second transaction (GRDB's schema check) and its reader's
        // lock: 10-15 µs more at the median.
        let database: ComicDatabase
        if let path = ProcessInfo.processInfo.environment["XKCD_BENCH_DB"], !path.isEmpty {
            guard FileManager.default.fileExists(atPath: path) else {
                throw SetupFailed("XKCD_BENCH_DB: no file at \(path)")
            }
            database = try ComicDatabase.open(at: path, connections: .readOnly)
            print("Search: index \(path)")
        } else {
            let corpus = try corpusDirectory()
            let indexer = Indexer(
                database: try ComicDatabase.open(at: temporaryIndexPath), source: MirrorComicSource(directory: corpus),
                logger: Logger(label: "xkcd-search.benchmark", factory: { _ in SwiftLogNoOpLogHandler() }))
            _ = try await indexer.run()
            // The snapshot's precomputed vectors, as `make demo` takes them: embedding every comic
            // would take minutes.
            let vectors = benchmarksDirectory.appendingPathComponent("../.build/snapshot/vectors.sqlite")
                .standardizedFileURL.path
            let writable = try ComicDatabase.open(at: temporaryIndexPath)
            _ = try await VectorIndexer(database: writable, encoder: try SentenceModel.located().encoder().get())
                .run(importingFrom: FileManager.default.fileExists(atPath: vectors) ? vectors : nil)
            database = try ComicDatabase.open(at: temporaryIndexPath, connections: .readOnly)
            print("Search: index of \(corpus.path) built in \(temporaryIndexPath) (set XKCD_BENCH_DB to reuse one)")
        }
        engine = SearchEngine(database: database, sentenceModel: .located())
        var generator = QueryGenerator(database: database)
        let mix =
            try devQueries().map { (kind: QueryKind.dev, text: $0) } + (try generator.queries())
            + (try setQueries("Relevance/descriptions.tsv").map { (kind: QueryKind.descriptions, text: $0) })
        queries = mix.filter { kind == nil || $0.kind == kind }.map(\.text)
        // Every query must be valid, or the benchmark would time error paths.
        for query in queries {
            do {
                if let problem = try engine.search(query, limit: 10).semanticProblem { throw problem }
            } catch {
                throw SetupFailed("query \(query.debugDescription) failed: \(error)")
            }
        }
        print("Search: \(queries.count) queries (\(kind?.rawValue ?? "all kinds"))")
        if ProcessInfo.processInfo.environment["XKCD_BENCH_PRINT_QUERIES"] != nil {
            for query in queries { print("  \(query)") }
        }
    }
}

/// The queries of the dev set, with `[num:A..B]` annotations turned into `num:A..B` filters.
private func devQueries() throws -> [String] {
    try setQueries("../../shared/eval/dev.tsv")
}

/// The queries of a relevance set (a path relative to `Benchmarks`), with `[num:A..B]`
/// annotations turned into `num:A..B` filters; none when the file is missing.
private func setQueries(_ path: String) throws -> [String] {
    let file = benchmarksDirectory.appendingPathComponent(path).standardizedFileURL
    guard let text = try? String(contentsOf: file, encoding: .utf8) else {
        print("Search: no \(file.path), the mix has none of its queries")
        return []
    }
    return text.split(separator: "\n").dropFirst().compactMap { line in
        guard let query = line.split(separator: "\t", omittingEmptySubsequences: false).first, !query.isEmpty else {
            return nil
        }
        return query.replacingOccurrences(of: "[", with: "").replacingOccurrences(of: "]", with: "")
    }
}

/// Generates queries from the titles and explanations in the index.
private struct QueryGenerator {
    let database: ComicDatabase
    var random = SplitMix64(seed: 0x786B_6364)  // "xkcd"

    init(database: ComicDatabase) {
        self.database = database
    }

    mutating func queries() throws -> [(kind: QueryKind, text: String)] {
        let ids = try database.comicIDs()
        var titleWords: [String] = []
        var years: Set<Int> = []
        for id in ids {
            guard let comic = try database.comic(id) else { continue }
            titleWords += words(in: comic.title).filter { $0.count >= 3 }
            years.insert(comic.date.year)
        }
        let sortedYears = years.sorted()
        guard !titleWords.isEmpty, let firstYear = sortedYears.first, let lastYear = sortedYears.last,
            let lastID = ids.last
        else {
            throw SetupFailed("the index holds no comics")
        }
        var explanations: [[String]] = []
        for _ in 0..<60 {
            let id = ids.randomElement(using: &random)!
            if let explanation = try database.explanation(for: id) {
                let text = words(in: explanation.page.explanation)
                if text.count >= 3 { explanations.append(text) }
            }
        }
        var vocabulary = titleWords.filter { $0.count >= 5 }
        for text in explanations { vocabulary += text.filter { $0.count >= 6 } }

        var queries: [(kind: QueryKind, text: String)] = []
        func word() -> String { titleWords.randomElement(using: &random)! }
        for _ in 0..<30 {  // 1-3 title words
            let count = Int.random(in: 1...3, using: &random)
            queries.append((.words, (0..<count).map { _ in word() }.joined(separator: " ")))
        }
        for _ in 0..<25 where !explanations.isEmpty {  // phrases
            let text = explanations.randomElement(using: &random)!
            let start = Int.random(in: 0...(text.count - 3), using: &random)
            queries.append((.phrases, "\"" + text[start..<start + 3].joined(separator: " ") + "\""))
        }
        for _ in 0..<25 {  // prefixes
            let stem = vocabulary.randomElement(using: &random)!
            queries.append((.prefixes, String(stem.prefix(Int.random(in: 3...4, using: &random))) + "*"))
        }
        for _ in 0..<10 {  // filters
            queries.append((.filters, "year:\(Int.random(in: firstYear...lastYear, using: &random)) \(word())"))
            let low = Int.random(in: 1...max(1, lastID - 400), using: &random)
            queries.append((.filters, "num:\(low)..\(low + Int.random(in: 50...400, using: &random)) \(word())"))
            let year = Int.random(in: firstYear...max(firstYear, lastYear - 1), using: &random)
            queries.append((.filters, "date:\(year)..\(year + 1)"))
        }
        for _ in 0..<20 {  // exclusions
            queries.append((.exclusions, "\(word()) -\(word())"))
        }
        for _ in 0..<20 {  // OR
            queries.append((.or, "\(word()) OR \(word())"))
        }
        for _ in 0..<30 {  // typos: one edit of a title word
            queries.append((.typos, misspelled(vocabulary.randomElement(using: &random)!)))
        }
        return queries
    }

    /// Lowercased runs of ASCII letters.
    private func words(in text: String) -> [String] {
        text.lowercased().split { !($0.isASCII && $0.isLetter) }.map(String.init)
    }

    /// One random deletion, insertion, substitution or transposition.
    private mutating func misspelled(_ word: String) -> String {
        var letters = Array(word)
        let letter = Character(Unicode.Scalar(UInt8.random(in: 97...122, using: &random)))
        let index = Int.random(in: 0..<letters.count - 1, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: letters.remove(at: index)
        case 1: letters.insert(letter, at: index)
        case 2: letters[index] = letter
        default: letters.swapAt(index, index + 1)
        }
        return String(letters)
    }
}

private struct SetupFailed: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
