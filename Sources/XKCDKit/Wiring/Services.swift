import FoundationEssentials
import Logging
import XKCDFiles
import XKCDStore

/// How a process uses the index it opens, which decides its connections.
public enum IndexAccess: Sendable, Hashable {
    /// One read-only connection: a command that reads once and exits.
    case reading
    /// One writable connection: a command that changes favourites (a read-only file is opened
    /// for reading, and the change refused).
    case writing
    /// A pool of readers and a writer: a server or a session that answers many requests, some at
    /// once.
    case serving

    var connections: ComicDatabase.Connections {
        switch self {
        case .reading: .readOnly
        case .writing: .single
        case .serving: .pool
        }
    }
}

/// The composition root: what a process is built from (where the files are, the logger, the
/// sentence model), made once per process, and the one place that opens the index and finds the
/// model. Every front end opens the index through it and runs requests against what it opens
/// (``OpenIndex``).
///
/// ```swift
/// let services = Services(paths: Paths(database: "/tmp/xkcd.sqlite"), logger: logger)
/// let index = try services.open(.reading)
/// let results = try SearchRequest(text: "bobby tables").run(in: index)
/// ```
public final class Services: Sendable {
    /// Where the index, the image cache and the state are.
    public let paths: Paths
    /// Where the library's steps are logged (`-v`, the server's log).
    public let logger: Logger
    /// The sentence model descriptions are searched with, looked for when first needed.
    public let model: SentenceModel
    /// Whether searches rank by meaning as well as words: false ranks by words alone and says
    /// nothing of the model (a test of the words' ranking).
    public let searchesByMeaning: Bool
    /// Called before an index of an earlier version is brought up to date (once, seconds).
    let upgrading: (@Sendable () -> Void)?
    /// Called when an index run holds the write lock and an open waits for it.
    let waiting: (@Sendable () -> Void)?

    /// What a process is built from; nothing is opened or looked for yet.
    ///
    /// - Parameters:
    ///   - paths: where the index, the image cache and the state are.
    ///   - logger: where the library logs its steps.
    ///   - model: the sentence model; nil looks for it where the executables find it
    ///     (`SentenceEncoder.locateModel`), when first needed.
    ///   - searchesByMeaning: false ranks searches by words alone.
    ///   - upgrading: called before an index of an earlier version is updated.
    ///   - waiting: called when an open waits for an index run to finish writing.
    public init(
        paths: Paths, logger: Logger, model: SentenceModel? = nil, searchesByMeaning: Bool = true,
        upgrading: (@Sendable () -> Void)? = nil, waiting: (@Sendable () -> Void)? = nil
    ) {
        self.paths = paths
        self.logger = logger
        self.model = model ?? .located()
        self.searchesByMeaning = searchesByMeaning
        self.upgrading = upgrading
        self.waiting = waiting
    }

    /// Opens the index at ``paths`` (which must exist) with the engine and library over it.
    ///
    /// - Parameters:
    ///   - access: how the index is used, which decides its connections.
    ///   - remembersShownComic: the comic shown last is kept in the state directory, so that
    ///     `next` works across processes; else in memory (a server has no "last shown").
    ///   - logger: where the engine and the library log their steps; ``logger`` when nil.
    /// - Throws: ``IndexFileError/missing(path:)`` when there is no file; `StoreError` when the
    ///   file cannot be opened as an index.
    /// - Returns: the index with the engine and the library over it, for requests to run in.
    public func open(_ access: IndexAccess, remembersShownComic: Bool = false, logger: Logger? = nil) throws
        -> OpenIndex
    {
        let database = try openDatabase(access.connections)
        return OpenIndex(
            database: database, services: self, remembersShownComic: remembersShownComic,
            logger: logger ?? self.logger)
    }

    /// The index opened for an index run, created when missing: the indexer's, which writes
    /// through the store itself.
    ///
    /// - Throws: `StoreError` when the file cannot be opened or created as an index.
    package func openForIndexing() throws -> ComicDatabase {
        try openDatabase(.pool, creating: true)
    }

    private func openDatabase(_ connections: ComicDatabase.Connections, creating: Bool = false) throws
        -> ComicDatabase
    {
        try ComicDatabase.openIndex(
            at: paths.databasePath, creating: creating, connections: connections, logger: logger,
            upgrading: upgrading, waiting: creating ? nil : waiting)
    }

    /// Whether the file at `path` starts as a SQLite database does: one a server may take up
    /// when it is published over the index it serves.
    ///
    /// - Parameter path: the file to look at.
    /// - Returns: true when the file starts with SQLite's header; false when it does not or
    ///   cannot be read.
    public static func startsAsSQLite(at path: String) -> Bool {
        ComicDatabase.startsAsSQLite(at: path)
    }
}

/// One open index with the engine and the library over it: what requests run in.
public struct OpenIndex: Sendable {
    /// Ranks comics for queries and passages.
    public let engine: SearchEngine
    /// Browsing, explanations, related comics and favourites.
    public let library: Library
    /// The model, the image cache's directory and the logger the index was opened with.
    public let services: Services
    let database: ComicDatabase

    init(database: ComicDatabase, services: Services, remembersShownComic: Bool, logger: Logger) {
        self.database = database
        self.services = services
        engine = SearchEngine(
            database: database, sentenceModel: services.searchesByMeaning ? services.model : nil, logger: logger)
        let paths = services.paths
        library = Library(
            database: database,
            shown: remembersShownComic
                ? ShownComic(stateDirectory: paths.stateDirectory, databasePath: paths.databasePath) : nil,
            logger: logger)
    }

    /// The index file's path, or nil for one in memory.
    public var path: String? { database.path }

    /// Whether an index run is writing to the file (its first run, while it is still empty).
    public var isIndexRunUnderWay: Bool { database.isIndexRunUnderWay }

    /// Closes the connections once no request uses them any more: the server's, when a new
    /// file was published at the path.
    public func close() {
        database.closeConnections()
    }
}
