import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension ComicDatabase {
    /// What the file at an index's path holds, found without writing to it.
    public enum FileKind: Sendable, Equatable {
        /// No file: `index` creates one there.
        case missing
        /// A file of zero bytes, or an SQLite database without a single table: `index` may
        /// build an index in it, nothing else has anything to read.
        case empty
        /// A database written by xkcd-search (of this version or an earlier one).
        case index
        /// An SQLite database of another program: never written.
        case foreignDatabase
        /// Not an SQLite database at all.
        case notADatabase
        /// An SQLite database shorter than its header says, or one SQLite reports corrupt.
        case damaged
    }

    /// The index files this process has opened, by their resolved paths.
    private static let heldOpen = Mutex<Set<String>>([])

    /// Remembers that this process opened the index at `path` (see ``kindOfFile(at:)``).
    static func noteHeldOpen(_ path: String) {
        let resolved = resolvedPath(path)
        heldOpen.withLock { _ = $0.insert(resolved) }
    }

    private static func isHeldOpen(_ path: String) -> Bool {
        let resolved = resolvedPath(path)
        return heldOpen.withLock { $0.contains(resolved) }
    }

    /// `path` absolute, with its symbolic links resolved, when the file exists; else as given.
    /// One index reached by several paths (`./idx.sqlite`, `idx.sqlite`, a link) is one file.
    public static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The first 16 bytes of every SQLite database file.
    private static let sqliteMagic = Array("SQLite format 3\u{0}".utf8)

    /// Reads the file's header, then its schema through a read-only connection, to say what it
    /// is. Neither writes to the file or creates one beside it (a database in rollback mode has
    /// no journal to read; an index is in WAL mode, whose shared-memory file SQLite may create).
    ///
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` when the file or its directory may not
    ///   be read.
    public static func kindOfFile(at path: String) throws(StoreError) -> FileKind {
        // An index this process holds open is not read again: SQLite holds POSIX locks on it,
        // and closing a descriptor of our own on the same file would drop them all (POSIX ties
        // such locks to the process and the file, not to the descriptor).
        if isHeldOpen(path) { return .index }
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT { return .missing }
            throw .cannotOpen(path: path, reason: systemReason(errno, path: path))
        }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .cannotOpen(path: path, reason: "it is a directory") }
        if info.st_size == 0 { return .empty }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: systemReason(errno, path: path)) }
        var header = [UInt8](repeating: 0, count: 100)
        let count = pread(descriptor, &header, header.count, 0)
        close(descriptor)
        guard count == header.count, Array(header[0..<16]) == sqliteMagic else { return .notADatabase }
        if isShorterThanHeaderSays(header, fileSize: Int(info.st_size), path: path) { return .damaged }
        do {
            let queue = try readOnlyQueue(at: path, configuration: Configuration())
            return try queue.read { db -> FileKind in
                if try Schema.isIndex(db) { return .index }
                let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                return tables == 0 ? .empty : .foreignDatabase
            }
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            return .damaged
        } catch {
            throw .cannotOpen(path: path, reason: StoreError.wrapping(error).description)
        }
    }

    /// Whether the file holds fewer pages than its header counts (a copy cut short), unless a
    /// write-ahead log is beside it: a checkpoint writes the header's new count before the
    /// pages that extend the file.
    private static func isShorterThanHeaderSays(_ header: [UInt8], fileSize: Int, path: String) -> Bool {
        func bigEndian(_ offset: Int, _ length: Int) -> Int {
            header[offset..<offset + length].reduce(0) { $0 << 8 | Int($1) }
        }
        var pageSize = bigEndian(16, 2)
        if pageSize == 1 { pageSize = 65536 }
        let pageCount = bigEndian(28, 4)
        // The count is valid only when the "version-valid-for" number matches the change counter.
        guard pageCount > 0, bigEndian(92, 4) == bigEndian(24, 4) else { return false }
        guard fileSize < pageSize * pageCount else { return false }
        var info = stat()
        return stat(path + "-wal", &info) != 0 || info.st_size == 0
    }

    /// A read-only connection. In a directory that cannot be written, a WAL database cannot be
    /// read through `mode=ro` (SQLite must create the `-shm` file: SQLITE_CANTOPEN); nothing can
    /// write to the file there either, so it is opened `immutable=1`, which reads it without the
    /// log or any lock.
    static func readOnlyQueue(at path: String, configuration: Configuration) throws -> DatabaseQueue {
        var configuration = configuration
        configuration.readonly = true
        let directory = (path as NSString).deletingLastPathComponent
        guard access(directory.isEmpty ? "." : directory, W_OK) != 0 else {
            return try DatabaseQueue(path: path, configuration: configuration)
        }
        return try DatabaseQueue(path: immutableURI(path), configuration: configuration)
    }

    /// `file:/path?immutable=1`, with the characters a URI gives a meaning escaped.
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    /// The path an ``immutableURI(_:)`` names.
    static func path(fromURI uri: String) -> String {
        guard uri.hasPrefix("file:"), let end = uri.lastIndex(of: "?") else { return uri }
        let encoded = String(uri[uri.index(uri.startIndex, offsetBy: 5)..<end])
        return encoded.removingPercentEncoding ?? encoded
    }

    /// Whether this process may write to the file and create files beside it (its journal).
    static func isWritable(_ path: String) -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        return access(path, W_OK) == 0 && access(directory.isEmpty ? "." : directory, W_OK) == 0
    }
}

/// Held while `xkcd-search index` runs on an index, released when it goes away: an advisory
/// `flock` on the index file itself. SQLite's locks are `fcntl` locks, which `flock` does not
/// touch, and no file is added beside the index.
public final class IndexRunLock: Sendable {
    private let descriptor: Int32

    fileprivate init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}

extension ComicDatabase {
    /// Takes the index-run lock of the index at `path`, creating an empty file there if there
    /// is none (which `index` may build in), so that a reader sees a run from its start.
    ///
    /// - Returns: nil when the file can be neither opened nor created; opening the index says why.
    /// - Throws: ``StoreError/indexRunInProgress(path:)`` when another process holds it.
    public static func lockForIndexing(at path: String) throws(StoreError) -> IndexRunLock? {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let descriptor = Glibc.open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .indexRunInProgress(path: path)
        }
        return IndexRunLock(descriptor: descriptor)
    }

    /// Whether an `xkcd-search index` run holds this index's file now (its index-run lock).
    public var isIndexRunUnderWay: Bool { path.map(Self.isBeingIndexed) ?? false }

    /// Whether another process holds the index-run lock of `path`.
    ///
    /// Through a descriptor kept open for the rest of the process: closing any descriptor of
    /// the file would drop the POSIX locks SQLite's connections hold on it (see
    /// ``kindOfFile(at:)``), and a process that then closes its last connection takes the file
    /// for unused and deletes the write-ahead log under a transaction of ours.
    static func isBeingIndexed(_ path: String) -> Bool {
        let resolved = resolvedPath(path)
        let descriptor = probeDescriptors.withLock { descriptors -> Int32 in
            if let kept = descriptors[resolved] { return kept }
            let opened = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            if opened >= 0 { descriptors[resolved] = opened }
            return opened
        }
        guard descriptor >= 0 else { return false }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        // Held no longer than the look: an index run starting now must get its lock.
        _ = flock(descriptor, LOCK_UN)
        return false
    }

    /// The descriptors ``isBeingIndexed(_:)`` looks through, by resolved path; never closed.
    private static let probeDescriptors = Mutex<[String: Int32]>([:])
}

/// What a connection does while another process holds the lock it needs (SQLite's busy
/// handler): it waits up to `timeout`, and past that as long as an index run holds the file, up
/// to ``indexRunLimit`` in all. An index run's longest transactions (the full-text index of
/// every comic rebuilt) can outlast any fixed timeout on a busy machine, and a favourite added
/// meanwhile waits its turn rather than fail; a run that has ended holds nothing, and a wait
/// for a process that is not indexing still ends at `timeout`.
final class BusyWait: Sendable {
    /// The longest wait for an index run, which only a run that hangs reaches.
    static let indexRunLimit: Duration = .seconds(600)

    private struct State {
        var start = ContinuousClock.now
        var lastLook = ContinuousClock.now
        var isIndexing = false
    }

    private let path: String
    private let timeout: Duration
    private let waiting: (@Sendable () -> Void)?
    private let state = Mutex(State())
    /// `waiting` is called once per process, whichever connection waits.
    private static let hasSaidWaiting = Atomic<Bool>(false)

    init(path: String, timeout: Duration, waiting: (@Sendable () -> Void)?) {
        self.path = path
        self.timeout = timeout
        self.waiting = waiting
    }

    /// SQLite's busy handler: true to try the lock again after a short sleep.
    var retry: Database.BusyCallback {
        { [self] tries in
            let now = ContinuousClock.now
            let (waited, isIndexing) = state.withLock { state -> (Duration, Bool) in
                if tries == 0 { state = State(start: now, lastLook: now, isIndexing: false) }
                // The lock file is looked at twice a second, not at every retry.
                if tries == 0 || now - state.lastLook >= .milliseconds(500) {
                    state.lastLook = now
                    state.isIndexing = ComicDatabase.isBeingIndexed(path)
                }
                return (now - state.start, state.isIndexing)
            }
            if isIndexing, waited >= .seconds(1), let waiting, !Self.hasSaidWaiting.exchange(true, ordering: .relaxed) {
                waiting()
            }
            guard waited < timeout || (isIndexing && waited < Self.indexRunLimit) else { return false }
            usleep(10_000)
            return true
        }
    }
}

/// The write-ahead log and shared-memory files of a database that were not there when this was
/// made, to be removed when the database is refused.
struct NewLogFiles {
    private let paths: [String]

    init(beside path: String) {
        paths = [path + "-wal", path + "-shm"].filter { access($0, F_OK) != 0 }
    }

    /// Removes them, unless a log holds something: then another process wrote to the file.
    func remove() {
        var info = stat()
        guard paths.allSatisfy({ !$0.hasSuffix("-wal") || stat($0, &info) != 0 || info.st_size == 0 }) else { return }
        for path in paths { unlink(path) }
    }
}

/// `errno` as a reason a user understands, naming the directory when it is the directory's fault.
func systemReason(_ code: Int32, path: String) -> String {
    switch code {
    case EACCES:
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty, access(directory, R_OK | X_OK) != 0 {
            return "permission denied: the directory \(directory) may not be read"
        }
        return "permission denied: the file may not be read"
    case ENOTDIR: return "a part of the path is not a directory"
    default: return String(cString: strerror(code))
    }
}
