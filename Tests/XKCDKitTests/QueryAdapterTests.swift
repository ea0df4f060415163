import Foundation
import Testing
import XKCDKit

/// The query adapter's file is read as it is written (`scripts` of issue 38's study: raw
/// little-endian float32, row-major) and refused when it is not one.
@Suite struct QueryAdapterTests {
    private func file(_ values: [Float]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("adapter-\(UUID()).f32").path
        var bytes = Data()
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Row `i` of the matrix is what the query's `i`th component adds to each output: a matrix
    /// that swaps the first two components and doubles the third maps (a, b, c) to the unit
    /// vector along (b, a, 2c).
    @Test func mapsAVectorByRowsAndNormalises() throws {
        let path = try file([0, 1, 0, 1, 0, 0, 0, 0, 2])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let adapter = try QueryAdapter(contentsOf: path, dimensions: 3)
        let mapped = adapter.apply([0.6, 0.8, 0])
        #expect(zip(mapped, [Float(0.8), 0.6, 0]).allSatisfy { abs($0 - $1) < 1e-6 }, "\(mapped)")
        let third = adapter.apply([0, 0, 1])
        #expect(third == [0, 0, 1])
        // Another length is no vector of this adapter's: left as it is.
        #expect(adapter.apply([1, 0]) == [1, 0])
    }

    @Test func refusesAFileOfAnotherSizeOrWithoutNumbers() throws {
        let short = try file([1, 0, 0])
        let notFinite = try file([1, 0, 0, .nan])
        defer { for path in [short, notFinite] { try? FileManager.default.removeItem(atPath: path) } }
        #expect(throws: QueryAdapterError.wrongSize(bytes: 12, dimensions: 2)) {
            try QueryAdapter(contentsOf: short, dimensions: 2)
        }
        #expect(throws: QueryAdapterError.notFinite) { try QueryAdapter(contentsOf: notFinite, dimensions: 2) }
        #expect(throws: QueryAdapterError.unreadable) {
            try QueryAdapter(contentsOf: "/nonexistent/adapter.f32", dimensions: 2)
        }
    }
}
