import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDFiles
import XKCDIndexer
import XKCDKit

/// `xkcd-search index`: the indexer's role of the one executable, the only one that opens libcurl
/// and libxml2. `xkcd-search` checks the arguments, then starts itself in this role with them. The run itself is
/// ``IndexRun``'s; this command draws its progress, words its outcome and picks the exit code.
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
        let run = try IndexRun(services: global.makeServices(), options: runOptions)
        defer { withExtendedLifetime(run) {} }  // the index-run lock is held until the run ends
        let bars = Terminal.isStandardErrorATerminal && !options.json ? StageBars() : nil
        // Fetching, then embedding, then images: Ctrl-C stops whichever is running, and each
        // keeps what it stored; a second one ends the process at once.
        let interrupts = Interrupts()
        let outcome: IndexRun.Outcome?
        do {
            outcome = try await interrupts.run { try await run.run { Self.show($0, bars) } }
        } catch  where interrupts.happened {
            outcome = nil  // before the first comic was asked for
        }
        bars?.clear()
        if let vectors = outcome?.vectors {
            if let problem = vectors.unusableFile {
                Terminal.printError("--vectors not used: \(problem); the comics were embedded by the model instead")
            }
            global.log(
                "vectors: \(vectors.embedded) embedded, \(vectors.imported) imported, \(vectors.current) current; comic texts read: \(vectors.textsRead)"
            )
        }
        guard let outcome, !outcome.isInterrupted else {
            let kept = try run.comicCount()
            Terminal.printError(
                "interrupted: the index keeps its \(kept) comics, all searchable; 'xkcd-search index' resumes from there"
            )
            throw ExitCode(130)
        }
        let (report, vectors) = (outcome.report, outcome.vectors)
        print(
            options.json
                ? try JSONDocument.line(IndexSummaryDocument(report, vectors: vectors, database: run.database))
                : IndexSummaryText.line(report, vectors: vectors))
        let images = options.images ? try await fetchImages(run, interrupts: interrupts) : nil
        if !report.failures.isEmpty || images?.failures.isEmpty == false { throw ExitCode(3) }
    }

    /// What the run is asked to do, from the options.
    private var runOptions: IndexRun.Options {
        var run = IndexRun.Options()
        run.mirror = options.mirror.map { URL(fileURLWithPath: $0) }
        run.rebuild = options.rebuild
        run.http.xkcdBaseURL = URL(string: options.xkcdURL)!
        run.http.explainBaseURL = URL(string: options.explainURL)!
        run.http.maxConcurrentRequestsPerHost = options.concurrency
        run.http.requestTimeout = .milliseconds(Int(options.timeout * 1000))
        run.http.requestDeadline = .milliseconds(Int(options.timeout * 4000))
        run.vectors = options.vectors
        run.linkedPassages = options.linkedPassages
        run.embeds = !options.noEmbed
        return run
    }

    /// The run's events on standard error: progress bars, and one line each for the rest.
    private static func show(_ event: IndexRun.Event, _ bars: StageBars?) {
        switch event {
        case .parsingAgain(let count):
            Terminal.printError("parsing the \(count) stored explanations again for the links between comics")
        case .parsingAgainFailed(let reason):
            Terminal.printError(
                "could not parse the stored explanations again (\(reason)); 'xkcd-search index --rebuild' will")
        case .progress(let stage, let progress): bars?.update(stage, progress)
        case .finished(let stage): bars?.finish(stage)
        case .noModel(let problem): Terminal.printError(Advice.line(for: problem))
        }
    }
}
