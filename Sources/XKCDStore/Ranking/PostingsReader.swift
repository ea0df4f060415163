/// Reads a stem's postings blob: for each comic holding the stem, the gap from the previous
/// comic's number (varint), a mask of the fields holding it (a byte, bit `i` for field `i`),
/// then its frequency in each of those fields (varints).
struct PostingsReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    private var id = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The next comic and its field mask; its frequencies are to be read (or skipped) before
    /// the next call. nil at the end or on a damaged blob.
    @inline(__always)
    mutating func next() -> (id: Int, mask: UInt8)? {
        // A damaged blob ends the postings rather than trapping on an overflow.
        guard let delta = Varint.read(bytes, at: &offset), offset < bytes.count,
            case (let next, false) = id.addingReportingOverflow(delta)
        else { return nil }
        id = next
        let mask = bytes[offset]
        offset += 1
        return (id, mask)
    }

    /// The frequency in the next field of the mask.
    @inline(__always)
    mutating func frequency() -> Int? { Varint.read(bytes, at: &offset) }
}
