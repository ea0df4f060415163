import Foundation

/// Text a command reads from its standard input (`search -`, `relevant -`).
public enum StandardInput: Sendable {
    /// Reads standard input to its end, keeping at most `limit` bytes and a few more (so that a
    /// cut can be told), and counting the rest: a pipe of gigabytes costs no memory.
    public static func read(keeping limit: Int) -> (text: String, byteCount: Int) {
        var kept = Data()
        var count = 0
        let input = FileHandle.standardInput
        while true {
            let chunk = input.readData(ofLength: 64 * 1024)
            if chunk.isEmpty { break }
            count += chunk.count
            if kept.count <= limit { kept.append(chunk.prefix(limit + 4 - kept.count)) }
        }
        return (String(decoding: kept, as: UTF8.self), count)
    }
}
