/// Comic numbers as a bitset: the few sets a boolean query combines are a few hundred bytes
/// each, and intersecting them is a word at a time.
struct ComicSet {
    private var bits: [UInt64]

    init(maxID: Int) {
        bits = [UInt64](repeating: 0, count: maxID / 64 + 1)
    }

    @inline(__always)
    mutating func insert(_ id: Int) {
        guard id >= 0, id / 64 < bits.count else { return }
        bits[id / 64] |= 1 << UInt64(id % 64)
    }

    mutating func formUnion(_ other: ComicSet) {
        for index in bits.indices { bits[index] |= other.bits[index] }
    }

    mutating func formIntersection(_ other: ComicSet) {
        for index in bits.indices { bits[index] &= other.bits[index] }
    }

    mutating func subtract(_ other: ComicSet) {
        for index in bits.indices { bits[index] &= ~other.bits[index] }
    }

    /// The members, ascending.
    var ids: [Int] {
        var ids: [Int] = []
        for (index, word) in bits.enumerated() {
            var rest = word
            while rest != 0 {
                ids.append(index * 64 + rest.trailingZeroBitCount)
                rest &= rest &- 1
            }
        }
        return ids
    }
}
