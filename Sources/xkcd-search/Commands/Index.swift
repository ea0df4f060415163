import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDImageCommand
import XKCDIndexCommand
import XKCDKit
import XKCDServeCommand

#if canImport(Glibc)
    import Glibc
#endif

extension XKCDSearch {
    /// Parses and checks the arguments here, then hands them to this executable in the indexer's
    /// role (`xkcd-search-index`).
    ///
    /// Indexing needs libcurl (and its TLS stack) and libxml2 (and ICU): about forty shared
    /// libraries whose loading and symbol binding took 15 of the 19 ms that `xkcd-search`
    /// needed to start. Searching is run once per query, so it must not pay for them: the
    /// indexer opens them when it first uses them.
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

/// This executable started again in another role, chosen by argv[0] (XKCDSearch.swift), for
/// what a search must not load the libraries for: `xkcd-search-index` (libcurl, libxml2, opened
/// when first used), `xkcd-search-serve` (Hummingbird, SwiftNIO), `xkcd-search-image` (libchafa).
/// A process of its own, as when they were executables of their own: its own signals, exit status
/// and index-run lock.
struct SiblingExecutable {
    struct Kind {
        var name: String
        /// What it is called in errors: "the indexer".
        var role: String

        static let indexer = Kind(name: IndexRole.name, role: "the indexer")
        static let server = Kind(name: ServeRole.name, role: "the server")
        static let drawer = Kind(name: ImageRole.name, role: "the image drawer")
    }

    /// This executable's file.
    var path: String
    var kind: Kind

    static func locate(_ kind: Kind) throws -> SiblingExecutable {
        let path = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        guard FileManager.default.isExecutableFile(atPath: path) else { throw SiblingError.missing(role: kind.role) }
        return SiblingExecutable(path: path, kind: kind)
    }

    func replaceCurrentProcess(arguments: [String]) throws -> Never {
        fflush(nil)  // all streams: nothing printed so far may be lost by exec
        let argv = ([kind.name] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        throw SiblingError.notStarted(role: kind.role, reason: String(cString: strerror(errno)))
    }

    /// From the REPL: the indexer runs as a child, and the prompt comes back when it ends.
    ///
    /// Cancelling (Ctrl-C at the REPL) sends the child SIGINT: it starts in a process group of
    /// its own, which the terminal's Ctrl-C does not reach. It stores what it has and ends, and
    /// this returns when it has, so nothing it prints lands after the next prompt.
    func run(arguments: [String]) async throws {
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(path, argument0: kind.name, arguments: arguments, inGroupOfItsOwn: true)
        } catch {
            throw SiblingError.notStarted(role: kind.role, reason: String(cString: strerror(error.code.rawValue)))
        }
        let status = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A thread of its own: waitpid blocks it until the child ends.
                Thread {
                    var status: Int32 = 0
                    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                    continuation.resume(returning: status)
                }.start()
            }
        } onCancel: {
            kill(pid, SIGINT)
        }
        // An exit with a status other than 0 is the session's error; an end by a signal is not.
        let exitStatus = (status >> 8) & 0xFF
        if status & 0x7F == 0, exitStatus != 0 { throw ExitCode(exitStatus) }
    }
}

enum SiblingError: Error, CustomStringConvertible {
    case missing(role: String)
    case notStarted(role: String, reason: String)

    var description: String {
        switch self {
        case .missing(let role):
            "could not start \(role): this executable's file cannot be found (was it removed?)"
        case .notStarted(let role, let reason):
            "could not start \(role): \(reason)"
        }
    }
}
