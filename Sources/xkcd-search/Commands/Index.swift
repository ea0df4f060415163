import ArgumentParser
import Foundation
import XKCDKit

extension XKCDSearch {
    struct Index: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch new comics and explanations and add them to the index.",
            discussion: """
                Asks xkcd.com for the latest comic, then fetches every comic and explain xkcd page \
                the index lacks, a few at a time. Raw responses are kept in \
                $XDG_CACHE_HOME/xkcd-search/raw, so --rebuild needs no network. An interrupted run \
                resumes where it stopped; comics that failed are retried by the next run.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("Read a local mirror laid out as xkcd/N/info.0.json and explainxkcd/api/N.json.", valueName: "dir"))
        var mirror: String?

        @Flag(help: "Parse and index again every comic from the kept responses (or the mirror), without requests.")
        var rebuild = false

        @Option(help: ArgumentHelp("Base URL of the xkcd JSON API.", valueName: "url"))
        var xkcdURL = "https://xkcd.com"

        @Option(help: ArgumentHelp("Base URL of the explain xkcd wiki.", valueName: "url"))
        var explainURL = "https://www.explainxkcd.com"

        @Option(help: "Requests in flight per site.")
        var concurrency = 4

        @Option(help: ArgumentHelp("Seconds before a request is given up and retried.", valueName: "seconds"))
        var timeout: Double = 30

        @Flag(help: "Print the summary as JSON.")
        var json = false

        func validate() throws {
            guard concurrency >= 1, concurrency <= 16 else {
                throw ValidationError("--concurrency must be between 1 and 16")
            }
            for (name, value) in [("--xkcd-url", xkcdURL), ("--explain-url", explainURL)] {
                guard let url = URL(string: value), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                    throw ValidationError("\(name) must be an http or https URL, not '\(value)'")
                }
            }
            if let mirror, !FileManager.default.fileExists(atPath: mirror + "/xkcd/info.0.json") {
                throw ValidationError("--mirror \(mirror) has no xkcd/info.0.json")
            }
        }

        func run() async throws {
            let logger = global.makeLogger()
            let database = try global.openDatabase(creating: true)
            let cache = RawCache(directory: global.paths.cacheDirectory.appendingPathComponent("raw"))
            let source: any ComicSource
            var mode = Indexer.Mode.incremental
            if let mirror {
                source = MirrorComicSource(directory: URL(fileURLWithPath: mirror))
                if rebuild { mode = .rebuild(nil) }
            } else if rebuild {
                source = CachedComicSource(cache: cache)
                mode = .rebuild(IndexPlan(comics: cache.storedComicIDs(), explanations: cache.storedExplanationIDs()))
            } else {
                var configuration = HTTPComicSource.Configuration()
                configuration.xkcdBaseURL = URL(string: xkcdURL)!
                configuration.explainBaseURL = URL(string: explainURL)!
                configuration.maxConcurrentRequestsPerHost = concurrency
                configuration.requestTimeout = .milliseconds(Int(timeout * 1000))
                source = CachingComicSource(
                    upstream: HTTPComicSource(configuration: configuration, logger: logger), cache: cache, logger: logger)
                _ = cache.removeLeftoverTemporaryFiles()
            }
            let indexer = Indexer(
                database: database, source: source, logger: logger,
                width: mirror == nil ? concurrency * 2 : 4)
            let bar = Terminal.isStandardErrorATerminal && !json ? ProgressBar(label: "indexing") : nil
            let report = try await indexer.run(mode: mode) { progress in
                bar?.update(completed: progress.completed, total: progress.total, failed: progress.failed)
            }
            bar?.finish()
            print(json ? try IndexSummary(report, database: database).jsonString() : IndexSummary.text(report))
            if !report.failures.isEmpty { throw ExitCode(3) }
        }
    }
}

/// The summary of a run, as text or JSON.
struct IndexSummary: Encodable {
    struct NewComic: Encodable { var num: Int; var title: String }
    struct Failure: Encodable { var num: Int; var what: String; var reason: String }
    var latest: Int
    var comicsFetched: Int
    var explanationsFetched: Int
    var new: [NewComic]
    var failed: [Failure]
    var seconds: Double
    var database: String

    init(_ report: IndexReport, database: ComicDatabase) {
        latest = report.latest
        comicsFetched = report.comicsFetched
        explanationsFetched = report.explanationsFetched
        new = report.newComics.map { NewComic(num: $0.id, title: $0.title) }
        failed = report.failures.map { Failure(num: $0.id, what: $0.resource, reason: $0.message) }
        seconds = report.elapsed.seconds
        self.database = database.path ?? ":memory:"
    }

    func jsonString() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// One line: what was fetched, the new comics, and every failure with its reason.
    static func text(_ report: IndexReport) -> String {
        var parts = [String(
            format: "indexed up to #%d: %d comics and %d explanations fetched in %.1f s",
            report.latest, report.comicsFetched, report.explanationsFetched, report.elapsed.seconds)]
        if report.newComics.isEmpty {
            parts.append("no new comics")
        } else {
            let shown = report.newComics.suffix(20).map { "#\($0.id) \(sanitized($0.title))" }
            let earlier = report.newComics.count > 20 ? " (and \(report.newComics.count - 20) earlier)" : ""
            parts.append("new: " + shown.joined(separator: ", ") + earlier)
        }
        if !report.failures.isEmpty {
            let failures = report.failures.map { "#\($0.id) \($0.resource): \(sanitized($0.message))" }
            parts.append("\(report.failures.count) failed, retried by the next run: " + failures.joined(separator: "; "))
        }
        return parts.joined(separator: "; ")
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
