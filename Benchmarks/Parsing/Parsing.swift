import Benchmark
import BenchmarkSupport
import Foundation
import XKCDParse

/// Parse + extract throughput of ``ExplainPageParser`` on real pages.
///
/// Setup loads every `explainxkcd/api/N.json` of the full corpus (`../shared/corpus`, 3,174 pages,
/// about 38 MB of HTML), or the extracted snapshot (`make snapshot-dir`) when it is absent, and keeps the
/// `parse.text` bytes. One iteration parses all of them once; divide the total bytes (printed by
/// setup) by the wall-clock time per iteration for MB/s (or multiply by `.throughput`, which is
/// iterations per second).
let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "Parse all explain xkcd pages",
        configuration: .init(
            metrics: [.wallClock, .throughput, .peakMemoryResident],
            timeUnits: .milliseconds,
            warmupIterations: 1,
            scalingFactor: .one,
            maxDuration: .seconds(20),
            maxIterations: 10
        )
    ) { benchmark, pages in
        let parser = ExplainPageParser()
        benchmark.startMeasurement()
        for page in pages {
            blackHole(try? parser.parse(htmlData: page))
        }
        benchmark.stopMeasurement()
    } setup: {
        try loadPages()
    }
}

private struct Response: Decodable {
    struct Parse: Decodable { var text: String }
    var parse: Parse
}

/// The `parse.text` of every API response, as UTF-8 bytes.
private func loadPages() throws -> [Data] {
    let directory = try corpusDirectory().appendingPathComponent("explainxkcd/api")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
    let pages = try names.compactMap { name -> Data? in
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        // A `missingtitle` error object (a page not written yet) has no `parse`.
        guard let response = try? JSONDecoder().decode(Response.self, from: data) else { return nil }
        return Data(response.parse.text.utf8)
    }
    let total = pages.reduce(0) { $0 + $1.count }
    print("Parsing: \(pages.count) pages, \(total) bytes of HTML from \(directory.path)")
    return pages
}
