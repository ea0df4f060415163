/// FNV-1a, 64 bits: a short digest that changes with the bytes, for names and tags (the file of
/// the comic shown last, an image's ETag, the tokens a comic's vectors were made from). Not a
/// secret, and not for hash tables keyed by what users type.
///
/// ```swift
/// var digest = FNV1a()
/// digest.combine("idx.sqlite".utf8)
/// String(digest.value, radix: 16)
/// ```
public struct FNV1a: Sendable {
    /// The digest of the bytes so far.
    @inlinable public var value: UInt64 { state }
    // Inlinable, so that a long body (an image's ETag) is hashed by a loop specialised for it.
    @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

    @inlinable public init() {}

    /// Adds `bytes`, in order.
    @inlinable public mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            state = (state ^ UInt64(byte)) &* 0x100_0000_01b3
        }
    }

    /// The digest of `bytes` alone.
    @inlinable public static func digest(of bytes: some Sequence<UInt8>) -> UInt64 {
        var digest = FNV1a()
        digest.combine(bytes)
        return digest.value
    }
}
