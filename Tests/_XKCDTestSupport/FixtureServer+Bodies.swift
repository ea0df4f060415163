import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

extension FixtureServer {
    private static let gzipped = Mutex<[Int: Data]>([:])

    /// `size` zero bytes through `gzip -1`, made once per size.
    static func gzippedZeros(_ size: Int) -> Data {
        if let data = gzipped.withLock({ $0[size] }) { return data }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c \(size) /dev/zero | gzip -1 -c"]
        let output = Pipe()
        process.standardOutput = output
        try? process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        gzipped.withLock { $0[size] = data }
        return data
    }
}

/// A body made one chunk at a time by `chunk(index)`, until it returns nil.
struct GeneratedBody: AsyncBufferedSequence {
    typealias Element = UInt8
    var chunk: @Sendable (Int) async throws -> [UInt8]?

    func makeAsyncIterator() -> Iterator { Iterator(chunk: chunk) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var chunk: @Sendable (Int) async throws -> [UInt8]?
        var index = 0
        var buffer: ArraySlice<UInt8> = []

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> ArraySlice<UInt8>? {
            if buffer.isEmpty {
                guard let next = try await chunk(index) else { return nil }
                index += 1
                buffer = next[...]
            }
            let taken = buffer.prefix(Swift.max(1, count))
            buffer = buffer.dropFirst(taken.count)
            return taken
        }
    }
}

/// Yields its bytes once, then fails, so FlyingFox closes the connection mid-body.
struct BrokenBody: AsyncBufferedSequence {
    typealias Element = UInt8
    var bytes: [UInt8]

    func makeAsyncIterator() -> Iterator { Iterator(bytes: bytes) }

    struct Iterator: AsyncBufferedIteratorProtocol {
        var bytes: [UInt8]
        var index = 0

        mutating func next() async throws -> UInt8? {
            guard index < bytes.count else { throw CancellationError() }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func nextBuffer(suggested count: Int) async throws -> ArraySlice<UInt8>? {
            guard index < bytes.count else { throw CancellationError() }
            let end = Swift.min(bytes.count, index + Swift.max(1, count))
            defer { index = end }
            return bytes[index..<end]
        }
    }
}
