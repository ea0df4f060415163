import ArgumentParser
import Foundation
import Logging
import XKCDKit

@main
struct XKCDSearch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xkcd-search",
        abstract: "Full-text search for xkcd comics, offline once indexed.",
        discussion: """
            Comics: Randall Munroe, https://xkcd.com, CC BY-NC 2.5.
            Explanations: the explain xkcd wiki, https://www.explainxkcd.com, CC BY-SA 3.0.
            """,
        version: "0.1.0",
        subcommands: [Index.self, Search.self, Stats.self, Show.self, Explain.self, Next.self, Prev.self, Latest.self, Random.self, Link.self, Open.self, Fav.self, About.self, Repl.self]
    )
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The index file, or a directory to hold index.sqlite.",
        discussion: "Default: $XDG_DATA_HOME/xkcd-search/index.sqlite (~/.local/share/xkcd-search/).",
        valueName: "path"))
    var db: String?

    @Flag(name: .shortAndLong, help: "Log what happens to standard error.")
    var verbose = false

    var paths: Paths { Paths(database: db) }

    func makeLogger() -> Logger {
        var logger = Logger(label: "xkcd-search") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .info : .error
        return logger
    }

    /// Opens the index; only `index` may create it, every other command needs one.
    func openDatabase(creating: Bool = false) throws -> ComicDatabase {
        let path = paths.databaseFile.path
        guard creating || FileManager.default.fileExists(atPath: path) else {
            throw MissingIndex(path: path)
        }
        return try ComicDatabase.open(at: path)
    }
}

/// Raised by every command but `index` when there is no index yet.
struct MissingIndex: Error, CustomStringConvertible {
    var path: String
    var description: String {
        "there is no index at \(path): build one with 'xkcd-search index' (or 'make demo' from the source tree)"
    }
}
