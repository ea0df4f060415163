import CWordScan

/// A text sixteen bytes at a time (`xkcd_classify16`), with the starts and ends of its words.
///
/// Bit `i` of a block's masks says something of the block's byte `i`: it begins a word
/// (``SnippetWindow/isWordByte(_:)``), is the first byte after one, or may begin a query word
/// (`XKCDFirstBytes`). An iterator rather than a method taking a closure: a scan's counters
/// captured by a closure lived in memory, and a long query's scan reads most words of a text.
struct WordBlocks {
    static let size = 16

    /// A block: the offset of its first byte and its masks.
    struct Block {
        var offset: Int
        var starts: UInt32, ends: UInt32, firsts: UInt32
    }

    private let base: UnsafePointer<UInt8>?
    private let count: Int
    private var firstBytes: XKCDFirstBytes
    /// The offset of the next block.
    private var offset: Int
    /// Whether the byte before the next block is a word byte, at bit 0.
    private var previous: UInt32

    /// The blocks of `text` from byte `start`, `firstBytes` marked in their `firsts`.
    init(_ text: UnsafeRawBufferPointer, from start: Int = 0, firstBytes: XKCDFirstBytes = XKCDFirstBytes()) {
        base = text.baseAddress?.assumingMemoryBound(to: UInt8.self)
        count = text.count
        self.firstBytes = firstBytes
        offset = start
        previous = start > 0 && start <= text.count && SnippetWindow.isWordByte(text[start - 1]) ? 1 : 0
    }

    /// The next block, or nil past the end. Bytes past the end of the text read as zero, which
    /// is no word byte, so a word ending there ends in the last block, unless the last block is
    /// full.
    @inline(__always)
    mutating func next() -> Block? {
        guard let base, offset < count else { return nil }
        let remaining = count - offset
        let masks =
            remaining >= Self.size
            ? xkcd_classify16(base + offset, &firstBytes)
            : xkcd_classify_tail(base + offset, Int32(remaining), &firstBytes)
        let before = (masks.words << 1 | previous) & 0xFFFF
        previous = masks.words >> 15
        defer { offset += Self.size }
        return Block(offset: offset, starts: masks.words & ~before, ends: before & ~masks.words, firsts: masks.firsts)
    }
}
