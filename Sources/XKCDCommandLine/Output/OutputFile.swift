import Foundation
import XKCDKit

/// A file a command writes where the user named it (`fav export FILE`).
public enum OutputFile: Sendable {
    /// Writes `data` to `path`, never over the index:
    /// - a regular file, or a new one, is replaced whole at once, under a new inode (a reader
    ///   never sees half of it); through a symbolic link, the file it points to is replaced and
    ///   the link kept;
    /// - anything else that takes writes (a pipe), and a path under `/dev/` or `/proc/` (such as
    ///   `/dev/stdout`, which may be a pipe or a file opened to append to), is written through;
    /// - a directory, the index file or a file of its journal is refused, and nothing is written.
    public static func write(_ data: Data, to path: String, sparingIndexAt indexPath: String) throws(LibraryError) {
        var status = stat()
        // `stat` follows links itself; a link to a file not written yet leads to where it will be.
        guard stat(path, &status) == 0 else { return try replace(finalTarget(of: path), with: data, named: path) }
        if status.st_mode & S_IFMT == S_IFDIR { throw .cannotWrite(path: path, reason: "it is a directory") }
        for file in [indexPath, indexPath + "-wal", indexPath + "-shm", indexPath + "-journal"] {
            var index = stat()
            if stat(file, &index) == 0, index.st_dev == status.st_dev, index.st_ino == status.st_ino {
                throw .cannotWrite(path: path, reason: "it is the index")
            }
        }
        let isSystemPath = path.hasPrefix("/dev/") || path.hasPrefix("/proc/")
        guard status.st_mode & S_IFMT == S_IFREG, !isSystemPath else { return try writeThrough(path, data) }
        try replace(finalTarget(of: path), with: data, named: path)
    }

    /// The file `path` leads to through symbolic links, whether it exists or not (a link to a file
    /// not written yet leads to where it will be).
    private static func finalTarget(of path: String) -> String {
        var target = path
        // As the kernel, give up after 40 links: a loop ends there.
        for _ in 0..<40 {
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: target) else { break }
            target =
                destination.hasPrefix("/")
                ? destination
                : URL(fileURLWithPath: target).deletingLastPathComponent().appendingPathComponent(destination).path
        }
        return target
    }

    private static func replace(_ target: String, with data: Data, named path: String) throws(LibraryError) {
        do {
            try data.write(to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            let directory = URL(fileURLWithPath: target).deletingLastPathComponent().path
            var isDirectory: ObjCBool = false
            let reason =
                !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue
                ? "its directory does not exist"
                : access(directory, W_OK) != 0 ? "its directory is not writable" : "it could not be written"
            throw .cannotWrite(path: path, reason: reason)
        }
    }

    private static func writeThrough(_ path: String, _ data: Data) throws(LibraryError) {
        // Appended to, not cut: `/dev/stdout` may be a file the shell opened with `>>`; a pipe
        // takes either.
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: describedError(errno)) }
        defer { close(descriptor) }
        if let code = StandardStreams.writeAll(Array(data), to: descriptor) {
            throw .cannotWrite(path: path, reason: describedError(code))
        }
    }
}
