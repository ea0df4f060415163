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

    /// Forgets that this process holds the index at `path` open: its connections are closed
    /// (``closeConnections()``), and a file renamed over the path since (a server's published
    /// index) is another file, to be read as any file is before it is opened.
    static func noteClosed(_ path: String) {
        let resolved = resolvedPath(path)
        heldOpen.withLock { _ = $0.remove(resolved) }
    }

    private static func isHeldOpen(_ path: String) -> Bool {
        let resolved = resolvedPath(path)
        return heldOpen.withLock { $0.contains(resolved) }
    }

    /// `path` absolute, with its symbolic links resolved, when the file exists; else as given.
    /// One index reached by several paths (`./idx.sqlite`, `idx.sqlite`, a link) is one file.
    package static func resolvedPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The first 16 bytes of every SQLite database file.
    private static let sqliteMagic = Array("SQLite format 3\u{0}".utf8)

    /// Whether the file at `path` starts as every SQLite database does, read without SQLite (and
    /// so without its locks or the `-wal` and `-shm` files at that path): for a server deciding
    /// whether a file published over its open index is worth closing that index for.
    package static func startsAsSQLite(at path: String) -> Bool {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: sqliteMagic.count)
        return pread(descriptor, &header, header.count, 0) == header.count && header == sqliteMagic
    }

    /// Reads the file's header, then its schema through a read-only connection, to say what it
    /// is. Neither writes to the file or creates one beside it (a database in rollback mode has
    /// no journal to read; an index is in WAL mode, whose shared-memory file SQLite may create).
    ///
    /// - Throws: ``StoreError/cannotOpen(path:reason:)`` when the file or its directory may not
    ///   be read.
    package static func kindOfFile(at path: String) throws(StoreError) -> FileKind {
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
