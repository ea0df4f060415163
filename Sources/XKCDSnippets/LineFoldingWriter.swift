/// Copies bytes to memory, splitting them at line breaks (the scalars `Character.isNewline`
/// accepts), dropping empty pieces and joining the rest with single spaces, so that the
/// destination needs no more room than the bytes written.
///
/// A piece written must not end inside a line break: the window's pieces are cut at word
/// boundaries, and a multi-byte break is made of word bytes.
struct LineFoldingWriter {
    private let destination: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var pendingSpace = false

    init(_ destination: UnsafeMutablePointer<UInt8>) { self.destination = destination }

    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        var runStart = 0  // of the bytes not yet copied, none of them a line break
        var index = 0
        while index < bytes.count {
            // Eight bytes at a time while none of them may begin a line break.
            if bytes.count - index >= 8,
                !Self.mayBeginLineBreak(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
                continue
            }
            let byte = bytes[index]
            // Most bytes are none of the three that begin a line break.
            guard byte &- 0x0A < 4 || byte == 0xC2 || byte == 0xE2 else {
                index += 1
                continue
            }
            var breakLength = 0
            switch byte {
            case 0x0A...0x0D: breakLength = 1  // LF, VT, FF, CR
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] == 0x85: breakLength = 2  // NEL
            case 0xE2
            where index + 2 < bytes.count && bytes[index + 1] == 0x80
                && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                breakLength = 3  // LINE SEPARATOR, PARAGRAPH SEPARATOR
            default: break
            }
            guard breakLength > 0 else {
                index += 1
                continue
            }
            copy(bytes, runStart..<index)
            pendingSpace = count > 0
            index += breakLength
            runStart = index
        }
        copy(bytes, runStart..<bytes.count)
    }

    /// Whether a byte of `block` is one a line break begins with: 0x0A to 0x0D, 0xC2 or 0xE2.
    @inline(__always)
    private static func mayBeginLineBreak(_ block: UInt64) -> Bool {
        let evened = block & ~ones(0x01)  // 0x0B and 0x0D as 0x0A and 0x0C
        let controls = zeroBytes(evened ^ ones(0x0A)) | zeroBytes(evened ^ ones(0x0C))
        let leads = zeroBytes((block & ~ones(0x20)) ^ ones(0xC2))  // 0xE2 as 0xC2
        return controls | leads != 0
    }

    /// `byte` in every byte of a 64-bit block.
    @inline(__always)
    private static func ones(_ byte: UInt64) -> UInt64 { byte &* 0x0101_0101_0101_0101 }

    /// The zero bytes of `block`, at bit 7 of each.
    @inline(__always)
    private static func zeroBytes(_ block: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((block & low) &+ low) | block | low)
    }

    private mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard !range.isEmpty, let base = bytes.baseAddress else { return }
        if pendingSpace {
            destination[count] = 0x20
            count += 1
            pendingSpace = false
        }
        (destination + count).update(from: base + range.lowerBound, count: range.count)
        count += range.count
    }
}
