import ArgumentParser
import FoundationEssentials
import Logging
import XKCDFiles
import XKCDKit

#if canImport(Glibc)
    import Glibc
#endif

/// Options every command takes.
public struct GlobalOptions: ParsableArguments, Sendable {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The index file, or a directory to hold index.sqlite.",
            discussion:
                "Default: $XKCD_SEARCH_DB, else $XDG_DATA_HOME/xkcd-search/index.sqlite (~/.local/share/xkcd-search/).",
            valueName: "path"), completion: .file())
    public var db: String?

    @Flag(name: .shortAndLong, help: "Log what is opened and read, and how long each step takes, to standard error.")
    public var verbose = false

    @Option(help: "Colour and bold: auto (on a terminal, unless NO_COLOR is set), always or never.")
    public var color: Terminal.ColorChoice = .auto

    @Flag(help: "Print straight to the terminal, not through $XKCD_SEARCH_PAGER, $PAGER or less.")
    public var noPager = false

    public init() {}

    public func validate() throws {
        if let db, let problem = Self.problem(withDatabase: db) { throw ValidationError(problem) }
    }

    /// Why `path` cannot be given as `--db`, or nil: an empty path names no file, and a device
    /// (`/dev/null`) or a pipe can hold no index.
    public static func problem(withDatabase path: String) -> String? {
        if path.isEmpty { return "--db needs a path: an index file, or a directory to hold index.sqlite" }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let kind = status.st_mode & S_IFMT
        guard kind != S_IFREG, kind != S_IFDIR else { return nil }
        return
            "--db \(escaped(path)) is not a file or a directory: give an index file, or a directory to hold index.sqlite"
    }

    /// `arguments` with the global options typed before the command (`xkcd-search --db X show
    /// 327`, `xkcd-search --no-pager log` as git takes it) moved to the end, where every command
    /// reads them (before a `--`, after which everything is words). `--json` is moved too: the
    /// command it follows says whether it takes it.
    public static func movedAfterTheCommand(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if ["-v", "--verbose", "--no-pager", "--json"].contains(argument) || argument.hasPrefix("--db=")
                || argument.hasPrefix("--color=")
            {
                leading.append(argument)
                index += 1
            } else if ["--db", "--color"].contains(argument), index + 1 < arguments.endIndex {
                leading += arguments[index...(index + 1)]
                index += 2
            } else {
                break
            }
        }
        guard !leading.isEmpty, index < arguments.endIndex else { return arguments }
        var rest = Array(arguments[index...])
        rest.insert(contentsOf: leading, at: rest.firstIndex(of: "--") ?? rest.endIndex)
        return rest
    }

    public var paths: Paths { Paths(database: db) }

    /// Whether the output is coloured, as `--color`, `NO_COLOR` and the terminal decide.
    public var usesColor: Bool { Terminal.usesColor(color) }

    public func makeLogger() -> Logger {
        Self.makeLogger(verbose: verbose)
    }

    /// Logs `message` to standard error with `-v`, as the library's steps are logged.
    public func log(_ message: @autoclosure () -> String) {
        guard verbose else { return }
        makeLogger().info("\(message())")
    }

    /// A logger writing to standard error: `info` and above with `-v`, else errors only.
    public static func makeLogger(verbose: Bool) -> Logger {
        var logger = Logger(label: "xkcd-search") { SanitizingLogHandler(StreamLogHandler.standardError(label: $0)) }
        logger.logLevel = verbose ? .info : .error
        return logger
    }

    /// What the command is built from: the paths `--db` and the environment give, the logger
    /// `-v` asks for, the sentence model where the executables find it.
    public func makeServices() -> Services {
        Self.makeServices(database: db, verbose: verbose)
    }

    /// ``makeServices()`` for the `--db` given, for a command read without ArgumentParser.
    ///
    /// - Parameters:
    ///   - database: the `--db` given, or nil.
    ///   - verbose: `-v`: log the library's steps.
    public static func makeServices(database: String?, verbose: Bool) -> Services {
        let paths = Paths(database: database)
        return Services(
            paths: paths, logger: makeLogger(verbose: verbose), upgrading: upgradingNotice(paths.databasePath),
            waiting: { Terminal.printError("waiting for 'xkcd-search index' to finish writing to the index") })
    }

    /// Opens the index the options name; only `index` may create it, every other command needs one.
    ///
    /// - Parameter access: ``IndexAccess/reading`` for most commands, which read once and exit;
    ///   ``IndexAccess/writing`` for one that changes favourites.
    /// - Throws: ``MissingIndex`` when there is none; what opening it throws.
    public func open(_ access: IndexAccess = .reading) throws -> OpenIndex {
        try Self.open(makeServices(), access)
    }

    /// Opens the index of `services`, the comic shown last kept in the state directory.
    ///
    /// - Parameters:
    ///   - services: what the command is built from.
    ///   - access: how the index is used.
    /// - Throws: ``MissingIndex`` when there is none; what opening it throws.
    public static func open(_ services: Services, _ access: IndexAccess) throws -> OpenIndex {
        do {
            return try services.open(access, remembersShownComic: true)
        } catch IndexFileError.missing(let path) {
            throw MissingIndex(path: path)
        }
    }
}

extension GlobalOptions {
    /// What a person is told while the index at `path` is brought up to this version's schema.
    public static func upgradingNotice(_ path: String) -> @Sendable () -> Void {
        { Terminal.printError("updating the index at \(path) for this version of xkcd-search (once, a few seconds)") }
    }
}

/// Raised by every command but `index` when there is no index yet.
public struct MissingIndex: Error, CustomStringConvertible {
    public var path: String

    /// - Parameter path: where the index was looked for.
    public init(path: String) {
        self.path = path
    }

    public var description: String {
        "there is no index at \(path): build one with 'xkcd-search index' (or 'make demo' from the source tree)"
    }
}

/// Passes every log event on with its message and metadata sanitized: servers' text is logged.
struct SanitizingLogHandler: LogHandler {
    var handler: StreamLogHandler

    init(_ handler: StreamLogHandler) {
        self.handler = handler
    }

    var logLevel: Logger.Level {
        get { handler.logLevel }
        set { handler.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { handler.metadata }
        set { handler.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { handler[metadataKey: key] }
        set { handler[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(sanitized(event.message.description))"
        event.metadata = event.metadata?.mapValues { .string(sanitized($0.description)) }
        handler.log(event: event)
    }
}
