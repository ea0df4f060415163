#if canImport(Glibc)
    import Glibc
#endif

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
