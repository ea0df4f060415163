import Foundation
import GRDB
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

    /// Wraps a connection and brings its schema up to date.
    public init(_ writer: any DatabaseWriter) throws(StoreError) {
        self.writer = writer
        try wrapped { try Schema.migrator.migrate(writer) }
    }

    /// Opens (or creates) the index file, in WAL mode.
    public static func open(at path: String) throws(StoreError) -> ComicDatabase {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotOpen(path: path, reason: "cannot create \(directory.path)")
        }
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Reads map the file instead of copying its pages in: a page of results reads tens of
            // kilobytes of explanations. Nothing vacuums the index, so the file never shrinks
            // under a mapping.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        configuration.busyMode = .timeout(10)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw .notAnIndex(path: path)
        } catch {
            throw .cannotOpen(path: path, reason: StoreError.wrapping(error).description)
        }
        do {
            return try ComicDatabase(pool)
        } catch .notAnIndex {
            throw .notAnIndex(path: path)
        }
    }

    /// An empty index in memory, for tests and benchmarks.
    public static func inMemory() throws(StoreError) -> ComicDatabase {
        try ComicDatabase(wrapped { try DatabaseQueue() })
    }

    /// The path of the database file, or nil in memory.
    public var path: String? {
        let path = writer.path
        return path.isEmpty || path == ":memory:" ? nil : path
    }

    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        try wrapped { try writer.read(body) }
    }

    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(StoreError) -> T {
        try wrapped { try writer.write(body) }
    }
}
