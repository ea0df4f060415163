/// SplitMix64: a tiny generator with a fixed seed, so that every run draws the same numbers (the
/// relevance tool's queries, the tests' random inputs, which a failure can then replay).
///
/// ```swift
/// var random = SplitMix64(seed: 0x5EED)
/// let n = Int.random(in: 1...3000, using: &random)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
