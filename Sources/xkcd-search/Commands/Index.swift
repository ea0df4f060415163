import ArgumentParser
import Foundation
import XKCDCommandLine

#if canImport(Glibc)
import Glibc
#endif

extension XKCDSearch {
    /// Parses and checks the arguments here, then hands them to `xkcd-search-index`.
    ///
    /// Indexing needs libcurl (and its TLS stack) and libxml2 (and ICU): about forty shared
    /// libraries whose loading and symbol binding took 15 of the 19 ms that `xkcd-search`
    /// needed to start. Searching is run once per query, so it must not pay for them.
    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: IndexOptions.abstract, discussion: IndexOptions.discussion)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: IndexOptions

        /// From the command line: the indexer replaces this process, keeping its id (so a signal
        /// sent to it reaches the indexer), its terminal and its exit status.
        /// The indexer parses the arguments after `index` again, with the global options typed
        /// before the command moved after it (``GlobalOptions/movedAfterTheCommand(_:)``).
        func run() throws {
            let line = GlobalOptions.movedAfterTheCommand(Array(CommandLine.arguments.dropFirst()))
            try SiblingExecutable.locate(.indexer).replaceCurrentProcess(arguments: Array(line.dropFirst()))
        }

        /// The arguments typed after `index`, with the REPL's `--db` and `--verbose` added
        /// unless they were typed.
        func indexerArguments(typed: [String]) -> [String] {
            let typesDatabase = typed.contains { $0 == "--db" || $0.hasPrefix("--db=") }
            let typesVerbose = typed.contains { $0 == "--verbose" || $0 == "-v" }
            var inherited: [String] = []
            if !typesDatabase, let db = global.db { inherited += ["--db", db] }
            if !typesVerbose, global.verbose { inherited.append("--verbose") }
            return inherited + typed
        }
    }
}

/// An executable installed beside this one that does what a search must not load the libraries
/// for: `xkcd-search-index` (the network stack, libxml2), `xkcd-search-serve` (SwiftNIO).
struct SiblingExecutable {
    struct Kind {
        var name: String
        /// What it is called in errors: "the indexer".
        var role: String

        static let indexer = Kind(name: "xkcd-search-index", role: "the indexer")
        static let server = Kind(name: "xkcd-search-serve", role: "the server")
    }

    var path: String
    var kind: Kind

    static func locate(_ kind: Kind) throws -> SiblingExecutable {
        let directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let path = directory.appendingPathComponent(kind.name).path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw SiblingError.missing(role: kind.role, path: path) }
        return SiblingExecutable(path: path, kind: kind)
    }

    func replaceCurrentProcess(arguments: [String]) throws -> Never {
        fflush(nil)  // all streams: nothing printed so far may be lost by exec
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        throw SiblingError.notStarted(role: kind.role, path: path, reason: String(cString: strerror(errno)))
    }

    /// From the REPL: the indexer runs as a child, and the prompt comes back when it ends.
    ///
    /// Cancelling (Ctrl-C at the REPL) sends the child SIGINT: Foundation starts it in a process
    /// group of its own, which the terminal's Ctrl-C does not reach. It stores what it has and
    /// ends, and this returns when it has, so nothing it prints lands after the next prompt.
    func run(arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let ended = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in ended.continuation.finish() }
        do {
            try process.run()
        } catch {
            throw SiblingError.notStarted(role: kind.role, path: path, reason: "\(error)")
        }
        let pid = process.processIdentifier
        await withTaskCancellationHandler {
            for await _ in ended.stream {}
        } onCancel: {
            kill(pid, SIGINT)
        }
        process.waitUntilExit()
        if process.terminationReason == .exit, process.terminationStatus != 0 {
            throw ExitCode(process.terminationStatus)
        }
    }
}

enum SiblingError: Error, CustomStringConvertible {
    case missing(role: String, path: String)
    case notStarted(role: String, path: String, reason: String)

    var description: String {
        switch self {
        case .missing(let role, let path):
            "\(role) is not installed: \(path) is missing (build the executables with 'make build')"
        case .notStarted(let role, let path, let reason):
            "could not start \(role) \(path): \(reason)"
        }
    }
}
