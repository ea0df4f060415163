import Foundation
import XKCDKit

/// A file a command writes where the user named it (`fav export FILE`).
public enum OutputFile: Sendable {
    /// Writes `data` to `path` as the shell's `>` would, but never over the index:
    /// - a regular file, or a new one, is replaced whole at once (a reader never sees half of
    ///   it); through a symbolic link, the file it points to is replaced and the link kept;
    /// - anything else that takes writes (a pipe, `/dev/stdout`) is written through;
    /// - a directory, the index file or a file of its journal is refused, and nothing is written.
    public static func write(_ data: Data, to path: String, sparingIndexAt indexPath: String) throws(LibraryError) {
        let target = finalTarget(of: path)
        var status = stat()
        guard stat(target, &status) == 0 else { return try replace(target, with: data, named: path) }
        if status.st_mode & S_IFMT == S_IFDIR { throw .cannotWrite(path: path, reason: "it is a directory") }
        for file in [indexPath, indexPath + "-wal", indexPath + "-shm", indexPath + "-journal"] {
            var index = stat()
            if stat(file, &index) == 0, index.st_dev == status.st_dev, index.st_ino == status.st_ino {
                throw .cannotWrite(path: path, reason: "it is the index")
            }
        }
        guard status.st_mode & S_IFMT == S_IFREG else { return try writeThrough(target, data, named: path) }
        try replace(target, with: data, named: path)
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
                ? "its directory does not exist" : "its directory is not writable"
            throw .cannotWrite(path: path, reason: reason)
        }
    }

    private static func writeThrough(_ target: String, _ data: Data, named path: String) throws(LibraryError) {
        let descriptor = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotWrite(path: path, reason: reason(errno)) }
        defer { close(descriptor) }
        var written = 0
        while written < data.count {
            let count = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw .cannotWrite(path: path, reason: count < 0 ? reason(errno) : "nothing was written")
            }
            written += count
        }
    }

    private static func reason(_ code: Int32) -> String {
        code == EACCES ? "permission denied" : String(cString: strerror(code)).lowercased()
    }
}
