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
        // A file read from disk into this mapping is then cached in 2 MB pages, which later
        // processes map each with one page table entry, rather than the 10,000 small pages of the
        // layers' 42 MB (docs/performance.md). It changes nothing of a file cached already.
        _ = madvise(mapping, length, MADV_HUGEPAGE)
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

    /// The tensor called `name`, which must have `shape` and be stored as one of `dtypes`.
    func tensor(
        _ name: String, shape: [Int], storedAs dtypes: [Tensor.DType] = [.f32, .f16]
    ) throws(EmbedError) -> Tensor {
        guard let tensor = tensors[name] else {
            throw .modelDamaged(path: path, reason: "no tensor \(name)")
        }
        guard dtypes.contains(tensor.dtype) else {
            let expected = dtypes.map(\.rawValue).joined(separator: " or ")
            throw .modelDamaged(path: path, reason: "\(name) has dtype \(tensor.dtype.rawValue), expected \(expected)")
        }
        guard tensor.shape == shape else {
            throw .modelDamaged(path: path, reason: "\(name) has shape \(tensor.shape), expected \(shape)")
        }
        return tensor
    }

    /// The matrix `name` (`<prefix>.weight`), of which rows are read one at a time: float32,
    /// float16, or int8 with one float32 scale a row in `<prefix>.scale`.
    func rowTable(_ name: String, shape: [Int]) throws(EmbedError) -> RowTable {
        let values = try tensor(name, shape: shape, storedAs: [.f32, .f16, .i8])
        guard values.dtype == .i8 else { return RowTable(values: values, scales: nil) }
        let scaleName = (name.hasSuffix(".weight") ? String(name.dropLast(".weight".count)) : name) + ".scale"
        return RowTable(values: values, scales: try tensor(scaleName, shape: [shape[0]], storedAs: [.f32]))
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
                throw HeaderError(reason: "tensor \(name) has dtype \(dtypeName), expected F32, F16 or I8")
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
            // Read in place as Float, Float16 or Int8, which needs their alignment in the mapping
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
        /// With scales beside it: a ``RowTable``'s one a row, or the int8 dense layers' per
        /// column and per input channel.
        case i8 = "I8"

        var size: Int {
            switch self {
            case .f32: 4
            case .f16: 2
            case .i8: 1
            }
        }
    }

    let dtype: DType
    let shape: [Int]
    /// From the start of the file.
    let offset: Int

    var count: Int { shape.reduce(1, *) }
}

/// A matrix read a row at a time (an embedding table), with the scale of each row when its
/// values are int8: ``ModelFile/rowTable(_:shape:)`` finds both.
struct RowTable: Sendable {
    let values: Tensor
    /// Float32, one a row; there exactly when `values` is int8.
    let scales: Tensor?
}

extension ModelFile {
    /// Calls `body` with `tensor` as float32: the mapped bytes themselves when the file stores
    /// float32, else a copy converted for this call only.
    ///
    /// `tensor` is float32 or float16: int8 tensors are read with their scales (a ``RowTable``,
    /// or the encoder's int8 dense weights).
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
        case .i8:
            preconditionFailure("an int8 tensor is read with its scales")
        }
    }

    /// Adds row `row` of the matrix `tensor` to the `destination` floats.
    func addRow(_ row: Int, of tensor: Tensor, to destination: UnsafeMutablePointer<Float>) {
        addRow(row, of: RowTable(values: tensor, scales: nil), to: destination)
    }

    /// Adds row `row` of `table` to the `destination` floats, scaled when the table is int8.
    func addRow(_ row: Int, of table: RowTable, to destination: UnsafeMutablePointer<Float>) {
        let width = table.values.shape[1]
        let start = address(of: table.values)
        switch table.values.dtype {
        case .f32:
            let values = start.assumingMemoryBound(to: Float.self) + row * width
            for column in 0..<width { destination[column] += values[column] }
        case .f16:
            let values = start.assumingMemoryBound(to: Float16.self) + row * width
            for column in 0..<width { destination[column] += Float(values[column]) }
        case .i8:
            guard let scales = table.scales else { preconditionFailure("an int8 table without its scales") }
            let scale = address(of: scales).assumingMemoryBound(to: Float.self)[row]
            let values = start.assumingMemoryBound(to: Int8.self) + row * width
            for column in 0..<width { destination[column] += Float(values[column]) * scale }
        }
    }
}
