import FoundationEssentials
import Logging

#if canImport(Glibc)
    import Glibc
    import XKCDFiles
    import XKCDStore
#endif

/// Why the index could not be opened, for the front end to word: the command line adds how to
/// build one, the server says it has none.
public enum IndexFileError: Error, Equatable, CustomStringConvertible {
    /// Not there at all (and not to be created).
    case missing(path: String)

    /// What is wrong, as one lowercase line without a full stop.
    public var description: String {
        switch self {
        case .missing(let path): "there is no index at \(escaped(path))"
        }
    }
}

extension ComicDatabase {
    /// Opens the index at `path`; only `index` may create it, every other front end needs one.
    ///
    /// - Parameters:
    ///   - path: the index file's path.
    ///   - creating: create the file when it is not there (`index` alone).
    ///   - connections: how this process holds the file; one connection unless told.
    ///   - logger: where to say which file was opened, how and in how long.
    ///   - upgrading: called before an index of an earlier version is updated (once, seconds).
    ///   - waiting: called when an index run holds the write lock and the open waits for it.
    /// - Returns: the open index.
    /// - Throws: ``IndexFileError/missing(path:)`` when there is no file and `creating` is false;
    ///   `StoreError` when the file cannot be opened as an index.
    public static func openIndex(
        at path: String, creating: Bool = false, connections: Connections = .single, logger: Logger,
        upgrading: (@Sendable () -> Void)? = nil, waiting: (@Sendable () -> Void)? = nil
    ) throws -> ComicDatabase {
        // Not there at all: a directory that may not be read is reported by the open.
        if !creating, access(path, F_OK) != 0, errno == ENOENT {
            throw IndexFileError.missing(path: path)
        }
        let start = ContinuousClock.now
        let database = try open(
            at: path, connections: connections, creating: creating, upgrading: upgrading, waiting: waiting)
        if logger.logLevel <= .info {
            let mode = database.isReadOnly ? "for reading" : "for reading and writing"
            logger.info("opened the index \(path) \(mode) in \(milliseconds(since: start))")
        }
        return database
    }
}
