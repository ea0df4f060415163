import FoundationEssentials
import Glibc

/// The model's `vocab.txt` (one token a line, its id the line's number from 0) as an
/// open-addressing hash table over the file's own bytes.
///
/// A dictionary of 30,522 Swift strings cost about 8 ms to build, a third of a whole process that
/// embeds one query; this table allocates nothing per token, and lookups compare bytes.
struct Vocabulary: Sendable {
    private let bytes: [UInt8]
    /// Token id → the byte range of its line (without the newline) in `bytes`.
    private let starts: [Int32]
    private let ends: [Int32]
    /// Token ids, -1 where empty; a power of two at least twice the number of tokens, so probe
    /// runs stay short.
    private let slots: [Int32]

    var count: Int { starts.count }

    /// BERT's vocabulary is 226 KB; one far larger is no model's, and is never read whole.
    static let maximumFileSize = 4 << 20

    init(contentsOf url: URL) throws(EmbedError) {
        let bytes = [UInt8](try readRegularFile(url, limit: Self.maximumFileSize))
        var starts: [Int32] = []
        var ends: [Int32] = []
        // BERT vocabularies average under 8 bytes a token.
        starts.reserveCapacity(bytes.count / 6)
        ends.reserveCapacity(bytes.count / 6)
        bytes.withUnsafeBufferPointer { buffer in
            var lineStart = 0
            while lineStart < buffer.count {
                let start = UnsafeRawPointer(buffer.baseAddress! + lineStart)
                // A last line without its newline is a token too.
                var lineEnd = buffer.count
                if let newline = memchr(start, 0x0A, buffer.count - lineStart) {
                    lineEnd = lineStart + start.distance(to: UnsafeRawPointer(newline))
                }
                starts.append(Int32(lineStart))
                ends.append(Int32(lineEnd))
                lineStart = lineEnd + 1
            }
        }
        var capacity = 1
        while capacity < 2 * starts.count { capacity *= 2 }
        var slots = [Int32](repeating: -1, count: capacity)
        bytes.withUnsafeBufferPointer { buffer in
            for id in starts.indices {
                let token = UnsafeBufferPointer(rebasing: buffer[Int(starts[id])..<Int(ends[id])])
                var slot = Self.hash(token) & (capacity - 1)
                // A token listed twice keeps its last id, as a dictionary filled in order would.
                while slots[slot] >= 0, !Self.equal(buffer, starts[Int(slots[slot])], ends[Int(slots[slot])], token) {
                    slot = (slot + 1) & (capacity - 1)
                }
                slots[slot] = Int32(id)
            }
        }
        (self.bytes, self.starts, self.ends, self.slots) = (bytes, starts, ends, slots)
    }

    /// The id of the token whose UTF-8 bytes are `token`, or nil.
    func id(of token: UnsafeBufferPointer<UInt8>) -> Int32? {
        bytes.withUnsafeBufferPointer { buffer in
            var slot = Self.hash(token) & (slots.count - 1)
            while slots[slot] >= 0 {
                let id = Int(slots[slot])
                if Self.equal(buffer, starts[id], ends[id], token) { return Int32(id) }
                slot = (slot + 1) & (slots.count - 1)
            }
            return nil
        }
    }

    func id(of token: String) -> Int32? {
        var token = token
        return token.withUTF8 { id(of: $0) }
    }

    private static func equal(
        _ buffer: UnsafeBufferPointer<UInt8>, _ start: Int32, _ end: Int32, _ token: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        Int(end - start) == token.count
            && memcmp(buffer.baseAddress! + Int(start), token.baseAddress!, token.count) == 0
    }

    /// FNV-1a: short keys, no seed needed (the table holds the model's tokens, not user input).
    private static func hash(_ token: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in token {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int(truncatingIfNeeded: hash)
    }
}
