import GRDB
import XKCDModel

/// A problem with the index database: what is wrong, in words for people. What to do about it
/// differs by front end, so the command line adds its advice (`Advice` in XKCDCommandLine).
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The database file could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// The file exists but is not an xkcd-search index (or is damaged).
    case notAnIndex(path: String)
    /// The file given as precomputed vectors is not a plain SQLite file with a table of them.
    case notAVectorFile(path: String, reason: String)
    /// The file has no bytes, or is an SQLite database without tables: only `index` builds in it.
    case emptyFile(path: String)
    /// Another program's SQLite database, left as it is.
    case foreignDatabase(path: String)
    /// A file that is not an SQLite database at all, left as it is.
    case notADatabase(path: String)
    /// An index cut short or reported corrupt by SQLite.
    case damaged(path: String)
    /// The file, its directory or its disk cannot be written.
    case readOnly
    /// An index made by an earlier version, which cannot be brought up to date where it is.
    case needsUpdate(path: String)
    /// Another `xkcd-search index` holds the index-run lock.
    case indexRunInProgress(path: String)
    /// An index run is creating the index, which is not one yet.
    case beingBuilt(path: String)
    /// Another process holds the database for longer than the busy timeout.
    case busy
    /// The disk is full or read-only.
    case cannotWrite(reason: String)
    /// The ranking index's stored data is damaged or in another version's format: the index
    /// must be rebuilt (the front end says how).
    case rankingDataDamaged
    /// Anything else SQLite reported; the SQL and its arguments are never included.
    case failed(reason: String)

    /// Paths are escaped for the message: a file name may hold any byte.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the index at \(escaped(path)): \(reason)"
        case .notAnIndex(let path): "\(escaped(path)) is not an xkcd-search index, or it is damaged"
        case .notAVectorFile(let path, let reason):
            "\(escaped(path)) is not a file of comic vectors (\(reason))"
        case .emptyFile(let path):
            "\(escaped(path)) is empty, not an xkcd-search index"
        case .foreignDatabase(let path):
            "\(escaped(path)) is another program's SQLite database, not an xkcd-search index; it was left as it is"
        case .notADatabase(let path):
            "\(escaped(path)) is not an xkcd-search index (not an SQLite database); it was left as it is"
        case .damaged(let path):
            "the index at \(escaped(path)) is damaged (cut short or unreadable)"
        case .needsUpdate(let path):
            "the index at \(escaped(path)) was made by an earlier version and must be updated once where it can be written"
        case .indexRunInProgress(let path):
            "another 'xkcd-search index' is updating the index at \(escaped(path)); this one stopped without changing anything"
        case .beingBuilt(let path):
            "the index at \(escaped(path)) is being built by 'xkcd-search index'; try again when that has finished"
        case .readOnly:
            "the index is read-only (its file, directory or disk): it can be searched and browsed, not changed"
        case .busy: "the index is busy (another xkcd-search is writing to it); try again"
        case .cannotWrite(let reason): "cannot write to the index: \(reason)"
        case .rankingDataDamaged: "index error: its ranking data is damaged or was written by another version"
        case .failed(let reason): "index error: \(reason)"
        }
    }

    /// Maps a GRDB error to a message without SQL or user text in it.
    static func wrapping(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? DatabaseError else { return .failed(reason: "\(error)") }
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy
        case .SQLITE_FULL: return .cannotWrite(reason: "the disk is full")
        case .SQLITE_READONLY: return .readOnly
        case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notAnIndex(path: "the database")
        default: return .failed(reason: error.message ?? "SQLite error \(error.resultCode.rawValue)")
        }
    }
}

/// Runs `body`, turning any GRDB error into a ``StoreError``.
@inline(__always)
func wrapped<T>(_ body: () throws -> T) throws(StoreError) -> T {
    do { return try body() } catch { throw StoreError.wrapping(error) }
}
