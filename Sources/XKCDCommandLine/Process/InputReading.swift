import XKCDKit

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes a command reads from standard input (`search -`, `relevant -`, `identify -`,
/// `fav import -`) or from a file it has opened, with POSIX `read`: a directory, a closed
/// descriptor or a failing device is then an error the user is told of in one line, where
/// Foundation's `FileHandle` reads would stop the process.
public enum InputReading: Sendable {
    /// Reads standard input to its end, keeping at most `limit` bytes and a few more (so that a
    /// cut can be told), and counting the rest: a pipe of gigabytes costs no memory.
    public static func standardInput(keeping limit: Int) throws(LibraryError) -> (text: String, byteCount: Int) {
        var kept: [UInt8] = []
        var count = 0
        try readChunks(of: STDIN_FILENO, named: standardInputName) { chunk in
            count += chunk.count
            if kept.count <= limit { kept.append(contentsOf: chunk.prefix(limit + 4 - kept.count)) }
            return true
        }
        // A byte-order mark (Windows editors write one) is no part of the text.
        if kept.starts(with: [0xEF, 0xBB, 0xBF]) { kept.removeFirst(3) }
        return (String(decoding: kept, as: UTF8.self), count)
    }

    /// The bytes of `descriptor` (standard input unless given) up to its end, or only the first
    /// `limit` of them.
    public static func bytes(
        of descriptor: Int32 = STDIN_FILENO, named name: String = standardInputName, upTo limit: Int? = nil
    ) throws(LibraryError) -> [UInt8] {
        var bytes: [UInt8] = []
        try readChunks(of: descriptor, named: name) { chunk in
            bytes.append(contentsOf: chunk.prefix(limit.map { $0 - bytes.count } ?? chunk.count))
            return limit.map { bytes.count < $0 } ?? true
        }
        return bytes
    }

    /// The bytes of the file at `path`, or only the first `limit` of them, named in errors as
    /// the user typed it: "no such file", "permission denied", "it is a directory".
    public static func bytes(ofFileAt path: String, upTo limit: Int? = nil) throws(LibraryError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .cannotRead(path: path, reason: errno == ENOENT ? "no such file" : describedError(errno))
        }
        defer { close(descriptor) }
        return try bytes(of: descriptor, named: path, upTo: limit)
    }

    /// How errors name standard input.
    public static let standardInputName = "standard input"

    /// Gives `body` each chunk read until the end, an error, or `body` returns false.
    private static func readChunks(
        of descriptor: Int32, named name: String, _ body: (ArraySlice<UInt8>) -> Bool
    ) throws(LibraryError) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(path: name, reason: describedError(errno))
            }
            if count == 0 || !body(buffer[..<count]) { return }
        }
    }
}

/// Why a read or a write failed, in the words of the library's errors: "it is a directory", "it is
/// closed", "permission denied", else the C library's words in lowercase.
func describedError(_ code: Int32) -> String {
    switch code {
    case EISDIR: "it is a directory"
    case EBADF: "it is closed"
    case EACCES: "permission denied"
    default: String(cString: strerror(code)).lowercased()
    }
}
