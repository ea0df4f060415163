import FoundationEssentials
import GRDB
import XKCDFiles
import XKCDModel

/// The index: comics, explanations, their full-text tables and the favourites, in one SQLite file.
///
/// The database takes its connection from outside, so tests use an in-memory queue and the
/// command line a WAL pool on disk:
///
/// ```swift
/// let database = try ComicDatabase.open(at: "/home/me/.local/share/xkcd-search/index.sqlite")
/// ```
public struct ComicDatabase: Sendable {
    let writer: any DatabaseWriter
    let rankingCache = RankingCache()
    let vectorCache = VectorCache()
    let linkCountCache = LinkCountCache()
    let linkedPassageCache = LinkedPassageCache()

    /// How a process holds the index file (in XKCDFiles, so that a command can choose without
    /// importing the store).
    public typealias Connections = IndexConnections

    /// Wraps a connection and brings its schema up to date.
    ///
    /// - Parameters:
    ///   - writer: the connection (a queue or a pool) that every read and write goes through.
    ///   - upgrading: called before an index written by an earlier version is brought
    ///     up to date, which takes seconds on a full index (not for a new, empty file).
    /// - Throws: a ``StoreError`` when the schema cannot be read or brought up to date: `.busy`
    ///   while another process holds the file, `.readOnly` or `.cannotWrite` when it cannot be
    ///   written, `.notAnIndex` for a file SQLite finds corrupt or not a database, `.failed` for
    ///   anything else.
    public init(_ writer: any DatabaseWriter, upgrading: (@Sendable () -> Void)? = nil) throws(StoreError) {
        self.writer = writer
        try wrapped {
            if let upgrading {
                // One read says both whether there is anything to do and whether to say so.
                let (isCurrent, isOlder) = try writer.read { db in
                    let isCurrent = try Schema.isCurrent(db)
                    return (isCurrent, try !isCurrent && !Schema.migrator.appliedMigrations(db).isEmpty)
                }
                if isCurrent { return }
                if isOlder { upgrading() }
            }
            try Schema.migrator.migrate(writer)
        }
    }

    /// Wraps a connection whose schema is known to be up to date.
    private init(current writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Seconds a connection waits for another process's write before it reports the index busy,
    /// unless an index run holds the file (see ``BusyWait``).
    static let busyTimeout: TimeInterval = 10

    /// Opens (or creates) the index file, in WAL mode.
    ///
    /// A file that is not an index is never written: another program's database, one that is
    /// not SQLite and a damaged index are refused, and so are a missing or empty file unless
    /// `creating`. A file this process cannot write is opened read-only.
    ///
    /// - Parameters:
    ///   - path: the index file; its directory is created if missing (unless read-only).
    ///   - connections: how the process holds the file: a WAL pool, a single connection, or
    ///     read-only.
    ///   - creating: build a new index in a missing or empty file (`index` alone).
    ///   - upgrading: see ``init(_:upgrading:)``.
    ///   - waiting: called once when a write waits for an index run to finish its own
    ///     (see ``BusyWait``).
    /// - Returns: the index with its schema up to date, read-only when `connections` is
    ///   `.readOnly` or the file cannot be written.
    /// - Throws: a ``StoreError``: `.cannotOpen` for a file that is missing (unless `creating`),
    ///   a directory or unopenable, or a directory that cannot be created; `.emptyFile` for an
    ///   empty one unless `creating`; `.foreignDatabase`, `.notADatabase`, `.damaged` or
    ///   `.notAnIndex` for a file that is not a sound index; `.beingBuilt` while an index run
    ///   creates it; `.readOnly` when `creating` and the file cannot be written; `.needsUpdate`
    ///   for an earlier version's index that cannot be written; and what ``init(_:upgrading:)``
    ///   throws.
    public static func open(
        at path: String, connections: Connections = .pool, creating: Bool = true,
        upgrading: (@Sendable () -> Void)? = nil, waiting: (@Sendable () -> Void)? = nil
    ) throws(StoreError) -> ComicDatabase {
        // Reading a WAL-mode file creates its -wal and -shm files: a file refused as no index
        // keeps no new ones beside it. Only such a file: one refused as being built or busy is
        // another process's, which may have just made them.
        let logFiles = NewLogFiles(beside: path)
        do {
            return try openChecked(
                at: path, connections: connections, creating: creating, upgrading: upgrading, waiting: waiting)
        } catch {
            switch error {
            case .damaged, .notAnIndex, .foreignDatabase, .notADatabase: logFiles.remove()
            default: break
            }
            throw error
        }
    }

    private static func openChecked(
        at path: String, connections: Connections, creating: Bool, upgrading: (@Sendable () -> Void)?,
        waiting: (@Sendable () -> Void)?
    ) throws(StoreError) -> ComicDatabase {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Reads map the file instead of copying its pages in: a page of results reads tens of
            // kilobytes of explanations. Only `index --rebuild` shrinks the file (``vacuum()``),
            // and through SQLite, which sizes a reader's mapping again when the file changed.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        configuration.busyMode = .callback(
            BusyWait(path: path, timeout: .seconds(Self.busyTimeout), waiting: waiting).retry)
        if connections == .readOnly {
            configuration.readonly = true
            // Nothing is written, and GRDB would otherwise run `PRAGMA foreign_keys = ON`
            // through its `execute(sql:)` (see above).
            configuration.foreignKeysEnabled = false
            let opened = Result { try readOnlyQueue(at: path, configuration: configuration) }
            if case .success(let queue) = opened, (try? queue.read(Schema.isCurrent)) == true {
                return ComicDatabase(current: queue)
            }
            // A file no version of xkcd-search wrote (empty, or another program's database): a
            // reader must not write an index's tables into it.
            try checkIsIndex(at: path, creating: false)
            // An index that could not be opened says why, as the open said it.
            _ = try connecting(to: path) { try opened.get() }
            guard isWritable(path) else { throw .needsUpdate(path: path) }
            // An older index is brought up to date once, through a writable connection, whose
            // new pages then go from the write-ahead log into the file: the read-only searches
            // after it cannot move them, and would read them through the log until the next
            // index run (a search process exits without closing its connection).
            let upgraded = try open(
                at: path, connections: .single, creating: false, upgrading: upgrading, waiting: waiting)
            // Only if no other process is reading the index: the update is saved either way,
            // and a reader's log is no reason to wait out the busy timeout or fail the search.
            try? upgraded.writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA busy_timeout = 0")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(Self.busyTimeout * 1000))") }
                try db.checkpoint(.truncate)
            }
            return upgraded
        }
        switch try checkIsIndex(at: path, creating: creating) {
        case .index where !isWritable(path):
            if creating { throw .readOnly }
            return try open(at: path, connections: .readOnly, upgrading: upgrading, waiting: waiting)
        default: break
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path, reason: "cannot create \(directory.path)")
        }
        let writer: any DatabaseWriter = try connecting(to: path) {
            if connections == .pool { return try DatabasePool(path: path, configuration: configuration) }
            return try DatabaseQueue(path: path, configuration: configuration)
        }
        // An index run holds the file and brings its schema up to date itself, the migrations
        // one transaction each: a reader seeing some of them must not run the rest beside it.
        if !creating, (try? writer.read(Schema.isCurrent)) != true, isBeingIndexed(path) {
            throw .beingBuilt(path: path)
        }
        do {
            let database = try ComicDatabase(writer, upgrading: upgrading)
            noteHeldOpen(path)
            return database
        } catch .notAnIndex {
            throw .notAnIndex(path: path)
        }
    }

    /// Refuses a file that is not an index, and a missing or empty one unless `creating`.
    @discardableResult
    static func checkIsIndex(at path: String, creating: Bool) throws(StoreError) -> FileKind {
        let kind = try kindOfFile(at: path)
        // Not yet an index, but one is being built in it: say so, not that it is empty or damaged.
        if kind != .index, !creating, isBeingIndexed(path) { throw .beingBuilt(path: path) }
        switch kind {
        case .index: break
        case .missing, .empty:
            if !creating {
                throw kind == .missing ? .cannotOpen(path: path, reason: "there is no file") : .emptyFile(path: path)
            }
        case .foreignDatabase: throw .foreignDatabase(path: path)
        case .notADatabase: throw .notADatabase(path: path)
        case .damaged: throw .damaged(path: path)
        }
        return kind
    }

    /// Runs `body`, which opens or first reads the file at `path`, reporting a file that is not
    /// an index as such and anything else as a file that cannot be opened.
    private static func connecting<T>(to path: String, _ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw .notAnIndex(path: path)
        } catch {
            throw .cannotOpen(path: path, reason: StoreError.wrapping(error).description)
        }
    }

    /// An empty index in memory, for tests and benchmarks.
    package static func inMemory() throws(StoreError) -> ComicDatabase {
        try ComicDatabase(wrapped { try DatabaseQueue() })
    }

    /// Moves the write-ahead log into the file and closes every connection, so that the `-wal`
    /// and `-shm` files beside it go: for a server about to open another file renamed over the
    /// same path, which SQLite would give the same two (their names come from the path). Reads
    /// and writes fail after it. When a connection cannot be closed now, the log is at least
    /// emptied, so that the next file finds nothing of this one's in it.
    public func closeConnections() {
        if !isReadOnly {
            try? writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        }
        try? writer.close()
        if let path { Self.noteClosed(path) }
    }

    /// Whether the index was opened for reading only (`.readOnly`, or a file this process cannot
    /// write).
    public var isReadOnly: Bool { writer.configuration.readonly }

    /// The path of the database file, or nil in memory.
    public var path: String? {
        let path = writer.path
        return path.isEmpty || path == ":memory:" ? nil : Self.path(fromURI: path)
    }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        try wrapped { try writer.read(body) }
    }

    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        try wrapped { try writer.write(body) }
    }
}
