import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDIndexer
import XKCDKit

/// `xkcd-search index`: the only executable that links the network stack and the HTML parser.
/// `xkcd-search` checks the arguments, then runs this one with them.
@main
struct XKCDSearchIndex: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xkcd-search index",
        abstract: IndexOptions.abstract,
        discussion: IndexOptions.discussion,
        version: "0.1.0")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: IndexOptions

    func run() async throws {
        do {
            try await index()
        } catch let error where !(error is ExitCode) {
            Terminal.exit(Self.self, withError: error)
        }
    }

    private func index() async throws {
        let logger = global.makeLogger()
        // Held until the run ends: a second run stops at once, a reader knows one is building.
        let lock = try ComicDatabase.lockForIndexing(at: global.paths.databasePath)
        defer { withExtendedLifetime(lock) {} }
        let database = try global.openDatabase(creating: true, connections: .pool)
        let cache = RawCache(directory: global.paths.cacheDirectory.appendingPathComponent("raw"))
        let source: any ComicSource
        var mode = Indexer.Mode.incremental
        if let mirror = options.mirror {
            source = MirrorComicSource(directory: URL(fileURLWithPath: mirror))
            if options.rebuild { mode = .rebuild(nil) }
        } else if options.rebuild {
            source = CachedComicSource(cache: cache)
            mode = .rebuild(IndexPlan(comics: cache.storedComicIDs(), explanations: cache.storedExplanationIDs()))
        } else {
            var configuration = HTTPComicSource.Configuration()
            configuration.xkcdBaseURL = URL(string: options.xkcdURL)!
            configuration.explainBaseURL = URL(string: options.explainURL)!
            configuration.maxConcurrentRequestsPerHost = options.concurrency
            configuration.requestTimeout = .milliseconds(Int(options.timeout * 1000))
            configuration.requestDeadline = .milliseconds(Int(options.timeout * 4000))
            source = CachingComicSource(
                upstream: HTTPComicSource(configuration: configuration, logger: logger), cache: cache, logger: logger)
            _ = cache.removeLeftoverTemporaryFiles()
        }
        let indexer = Indexer(
            database: database, source: source, logger: logger,
            width: options.mirror == nil ? options.concurrency * 2 : 4)
        let bar = Terminal.isStandardErrorATerminal && !options.json ? ProgressBar(label: "indexing") : nil
        let run = Task {
            try await indexer.run(mode: mode) { progress in
                bar?.update(completed: progress.completed, total: progress.total, failed: progress.failed)
            }
        }
        // Ctrl-C stops the run, which stores what it has; a second one ends the process at once.
        signal(SIGINT, SIG_IGN)
        let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupts.setEventHandler {
            run.cancel()
            interrupts.cancel()
            signal(SIGINT, SIG_DFL)
        }
        interrupts.resume()
        let report: IndexReport?
        do {
            report = try await run.value
        } catch where run.isCancelled {
            report = nil  // before the first comic was asked for
        }
        bar?.finish()
        guard let report, !report.isInterrupted else {
            let kept = try database.statistics().comics
            Terminal.printError("interrupted: the index keeps its \(kept) comics, all searchable; 'xkcd-search index' resumes from there")
            throw ExitCode(130)
        }
        print(options.json ? try IndexSummary(report, database: database).jsonString() : IndexSummary.text(report))
        if !report.failures.isEmpty { throw ExitCode(3) }
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
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: Terminal.escapingControls(inJSON: try encoder.encode(self)), as: UTF8.self)
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
