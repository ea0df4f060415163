import Foundation
import Glibc

/// A safetensors file mapped read-only: the tensors are read where they lie, never copied whole.
///
/// The format (<https://github.com/huggingface/safetensors>): an 8-byte little-endian header
/// length, a JSON header naming each tensor's dtype, shape and byte range in the data that
/// follows, and `__metadata__` with string values. Every range is checked against the file's
/// length here, so a truncated or foreign file is an error and never a read out of bounds.
final class ModelFile: @unchecked Sendable {
    // @unchecked: the mapping is read-only and unmapped only in deinit, when no one holds it.
    private let base: UnsafeRawPointer
    private let length: Int
    let path: String
    let metadata: [String: String]
    private let tensors: [String: Tensor]

    init(path: String) throws(EmbedError) {
        self.path = path
        // Mapped, not read: its size costs no memory until the tensors are used.
        let (descriptor, size) = try openRegularFile(path, limit: Int.max)
        defer { close(descriptor) }
        guard size >= 8 else {
            throw .modelDamaged(path: path, reason: "the file is too short to hold a header")
        }
        length = size
        guard let mapping = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), mapping != MAP_FAILED else {
            throw .modelDamaged(path: path, reason: "cannot map: \(String(cString: strerror(errno)))")
        }
        base = UnsafeRawPointer(mapping)
        do {
            (metadata, tensors) = try Self.readHeader(base: base, length: length)
        } catch {
            munmap(mapping, length)
            throw .modelDamaged(path: path, reason: error.reason)
        }
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), length)
    }

    /// The tensor called `name`, which must have `shape`.
    func tensor(_ name: String, shape: [Int]) throws(EmbedError) -> Tensor {
        guard let tensor = tensors[name] else {
            throw .modelDamaged(path: path, reason: "no tensor \(name)")
        }
        guard tensor.shape == shape else {
            throw .modelDamaged(path: path, reason: "\(name) has shape \(tensor.shape), expected \(shape)")
        }
        return tensor
    }

    /// The first byte of `tensor`, which ``readHeader`` checked lies with all its bytes in the file.
    func address(of tensor: Tensor) -> UnsafeRawPointer {
        base + tensor.offset
    }

    private static let maximumHeaderLength = 4 << 20

    private struct HeaderError: Error {
        let reason: String
    }

    private static func readHeader(
        base: UnsafeRawPointer, length: Int
    ) throws(HeaderError) -> ([String: String], [String: Tensor]) {
        let headerLength = UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
        guard headerLength <= UInt64(length - 8) else {
            throw HeaderError(reason: "the header is longer than the file (truncated?)")
        }
        // The header is copied and parsed: all-MiniLM-L6-v2's is 12 KB.
        guard headerLength <= UInt64(maximumHeaderLength) else {
            throw HeaderError(reason: "the header is longer than \(maximumHeaderLength >> 20) MB")
        }
        let dataStart = 8 + Int(headerLength)
        let headerBytes = Data(bytes: base + 8, count: Int(headerLength))
        guard let header = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any] else {
            throw HeaderError(reason: "the header is not a JSON object")
        }
        var metadata: [String: String] = [:]
        var tensors: [String: Tensor] = [:]
        for (name, value) in header {
            if name == "__metadata__" {
                guard let values = value as? [String: String] else {
                    throw HeaderError(reason: "__metadata__ is not a map of strings")
                }
                metadata = values
                continue
            }
            guard let entry = value as? [String: Any],
                let dtypeName = entry["dtype"] as? String,
                let shape = entry["shape"] as? [Int],
                let offsets = entry["data_offsets"] as? [Int], offsets.count == 2
            else {
                throw HeaderError(reason: "tensor \(name) lacks dtype, shape or data_offsets")
            }
            guard let dtype = Tensor.DType(rawValue: dtypeName) else {
                throw HeaderError(reason: "tensor \(name) has dtype \(dtypeName), expected F32 or F16")
            }
            let (begin, end) = (offsets[0], offsets[1])
            guard 0 <= begin, begin <= end, end <= length - dataStart else {
                throw HeaderError(reason: "tensor \(name) lies past the end of the file (truncated?)")
            }
            var count = 1
            for dimension in shape {
                guard dimension >= 0 else { throw HeaderError(reason: "tensor \(name) has a negative dimension") }
                let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
                guard !overflow else { throw HeaderError(reason: "tensor \(name) is too large") }
                count = product
            }
            guard count.multipliedReportingOverflow(by: dtype.size) == (end - begin, false) else {
                throw HeaderError(reason: "tensor \(name) has \(end - begin) bytes for shape \(shape)")
            }
            // Read in place as Float or Float16, which needs their alignment in the mapping
            // (the mapping itself starts on a page).
            guard (dataStart + begin) % dtype.size == 0 else {
                throw HeaderError(reason: "tensor \(name) is not aligned")
            }
            tensors[name] = Tensor(dtype: dtype, shape: shape, offset: dataStart + begin)
        }
        return (metadata, tensors)
    }
}

/// Where one tensor lies in a ``ModelFile`` and how it is stored.
struct Tensor: Sendable {
    enum DType: String, Sendable {
        case f32 = "F32"
        case f16 = "F16"

        var size: Int {
            switch self {
            case .f32: 4
            case .f16: 2
            }
        }
    }

    let dtype: DType
    let shape: [Int]
    /// From the start of the file.
    let offset: Int

    var count: Int { shape.reduce(1, *) }
}

extension ModelFile {
    /// Calls `body` with `tensor` as float32: the mapped bytes themselves when the file stores
    /// float32, else a copy converted for this call only.
    func withFloats<Result>(_ tensor: Tensor, _ body: (UnsafePointer<Float>) -> Result) -> Result {
        let start = address(of: tensor)
        switch tensor.dtype {
        case .f32:
            return body(start.assumingMemoryBound(to: Float.self))
        case .f16:
            let halves = start.assumingMemoryBound(to: Float16.self)
            return withUnsafeTemporaryAllocation(of: Float.self, capacity: tensor.count) { floats in
                for index in 0..<tensor.count { floats[index] = Float(halves[index]) }
                return body(UnsafePointer(floats.baseAddress!))
            }
        }
    }

    /// Adds row `row` of the matrix `tensor` to the `destination` floats.
    func addRow(_ row: Int, of tensor: Tensor, to destination: UnsafeMutablePointer<Float>) {
        let width = tensor.shape[1]
        let start = address(of: tensor)
        switch tensor.dtype {
        case .f32:
            let values = start.assumingMemoryBound(to: Float.self) + row * width
            for column in 0..<width { destination[column] += values[column] }
        case .f16:
            let values = start.assumingMemoryBound(to: Float16.self) + row * width
            for column in 0..<width { destination[column] += Float(values[column]) }
        }
    }
}
