/// LEB128 unsigned integers, the compact encoding of the ranking blobs.
enum Varint {
    static func append(_ value: UInt64, to buffer: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            buffer.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        buffer.append(UInt8(value))
    }

    /// Reads one integer at `offset` and moves past it; nil at the end or on a damaged blob.
    static func read(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Int? {
        var result = 0
        var shift = 0
        while offset < bytes.count, shift < 63 {
            let byte = bytes[offset]
            offset += 1
            result |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        return nil
    }
}
