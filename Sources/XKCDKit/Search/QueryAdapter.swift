import FoundationEssentials

/// A linear map applied to a query's sentence vector before it is compared with the comics':
/// the vector becomes `normalize(q · M)`, `M` a square matrix learned from passages and the
/// comics people linked for them (issue 38's contrastive adapter, docs/ranking.md). The comics'
/// vectors stay as the model made them.
///
/// Measured with `Benchmarks/Relevance --query-adapter`; no search uses one unless told.
public struct QueryAdapter: Sendable {
    /// The vector's length, the matrix's side.
    public let dimensions: Int
    /// `M`, row-major: row `i` is what the query's `i`th component adds to each output.
    private let matrix: [Float]

    /// Reads `M` from a file of `dimensions × dimensions` little-endian float32, row-major.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - dimensions: the vectors' length.
    /// - Throws: ``QueryAdapterError`` when the file cannot be read, is of another size, or holds
    ///   a value that is not a finite number.
    public init(contentsOf path: String, dimensions: Int) throws(QueryAdapterError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable }
        guard data.count == dimensions * dimensions * MemoryLayout<Float>.size else {
            throw .wrongSize(bytes: data.count, dimensions: dimensions)
        }
        let matrix = data.withUnsafeBytes { bytes in
            (0..<dimensions * dimensions).map { index in
                Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
            }
        }
        guard matrix.allSatisfy(\.isFinite) else { throw .notFinite }
        self.dimensions = dimensions
        self.matrix = matrix
    }

    /// Maps a query's vector.
    ///
    /// - Parameter vector: a unit vector of the model's.
    /// - Returns: `normalize(vector · M)`; a vector of another length, or one the map sends to
    ///   zero, as it is.
    public func apply(_ vector: [Float]) -> [Float] {
        guard vector.count == dimensions else { return vector }
        var mapped = [Float](repeating: 0, count: dimensions)
        matrix.withUnsafeBufferPointer { matrix in
            for (row, value) in vector.enumerated() {
                let weights = UnsafeBufferPointer(rebasing: matrix[row * dimensions..<(row + 1) * dimensions])
                for column in 0..<dimensions { mapped[column] += value * weights[column] }
            }
        }
        let length = mapped.reduce(0) { $0 + $1 * $1 }.squareRoot()
        guard length > 0, length.isFinite else { return vector }
        return mapped.map { $0 / length }
    }
}

/// Why a query adapter's file was refused.
public enum QueryAdapterError: Error, Equatable, CustomStringConvertible {
    /// The file is missing or cannot be read.
    case unreadable
    /// The file's length is not that of a `dimensions × dimensions` matrix of float32.
    case wrongSize(bytes: Int, dimensions: Int)
    /// A value is NaN or infinite.
    case notFinite

    /// One line for a person.
    public var description: String {
        switch self {
        case .unreadable: "the query adapter's file cannot be read"
        case .wrongSize(let bytes, let dimensions):
            "the query adapter's file has \(bytes) bytes, not \(dimensions * dimensions * 4) (\(dimensions) × \(dimensions) floats)"
        case .notFinite: "the query adapter's file holds a value that is not a finite number"
        }
    }
}
