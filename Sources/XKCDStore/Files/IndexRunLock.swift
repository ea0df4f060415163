import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

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
    package static func lockForIndexing(at path: String) throws(StoreError) -> IndexRunLock? {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
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
