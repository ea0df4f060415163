import Glibc

/// The layers' tensors as the products read them: float32 (the mapped bytes when the file stores
/// float32, else a copy widened once), or int8 packed into oneDNN's layout, made when the model is
/// loaded and kept with it.
final class ConvertedWeights: @unchecked Sendable {
    // @unchecked: filled while the encoder is made, and once by the pass that packs the weights
    // (under ``WeightPacking``'s lock); what is filled is only read after.
    private let file: ModelFile
    private var copies: [UnsafeMutableRawPointer] = []
    /// Mappings the widened or packed weights are carved from, in 2 MB pages where the kernel
    /// gives them: 42 MB of fresh memory in 4 KB pages was 10,700 page faults in every process
    /// that widens.
    private var arenas: [(base: UnsafeMutableRawPointer, length: Int)] = []
    private var arenaUsed = 0
    /// What one arena maps: pages never written cost no memory, so the last one's tail is free.
    private static let arenaLength = 16 << 20

    init(_ file: ModelFile) {
        self.file = file
    }

    deinit {
        for copy in copies { copy.deallocate() }
        for arena in arenas { munmap(arena.base, arena.length) }
    }

    /// Room for `count` floats, 64-byte aligned, from the current arena or a new one (or from
    /// the allocator if the mapping fails).
    private func allocate(_ count: Int) -> UnsafeMutablePointer<Float> {
        allocate(bytes: count * MemoryLayout<Float>.stride).bindMemory(to: Float.self, capacity: count)
    }

    /// `byteCount` zeroed bytes, 64-byte aligned, from the current arena or a new one (or from
    /// the allocator if the mapping fails).
    private func allocate(bytes byteCount: Int) -> UnsafeMutableRawPointer {
        let bytes = (byteCount + 63) / 64 * 64
        if arenas.last.map({ arenaUsed + bytes > $0.length }) ?? true {
            let hugePage = 2 << 20
            let length = max(Self.arenaLength, (bytes + hugePage - 1) / hugePage * hugePage)
            if let base = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                base != MAP_FAILED
            {
                _ = madvise(base, length, MADV_HUGEPAGE)
                arenas.append((base, length))
                arenaUsed = 0
            } else {
                let copy = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                copy.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
                copies.append(copy)
                return copy
            }
        }
        defer { arenaUsed += bytes }
        return arenas[arenas.count - 1].base + arenaUsed
    }

    /// The int8 weights `[inputs, outputs]` packed into oneDNN's VNNI layout (``VNNIWeights``),
    /// in `byteCount` bytes (what oneDNN's layout takes).
    func packed(_ weights: UnsafePointer<Int8>, inputs: Int, outputs: Int, byteCount: Int) -> UnsafeRawPointer {
        let packed = allocate(bytes: byteCount)
        VNNIWeights.pack(weights, inputs: inputs, outputs: outputs, into: packed)
        return UnsafeRawPointer(packed)
    }

    /// The int8 `weight` as float32, `[inputs, outputs]`: each value times its column's scale and
    /// its input channel's, so that the float32 products take the inputs as they are.
    func widened(
        _ weight: Tensor, scales: BertEncoder.QuantizationScales, inputs: Int, outputs: Int
    ) -> UnsafePointer<Float> {
        let values = file.address(of: weight).assumingMemoryBound(to: Int8.self)
        let copy = allocate(inputs * outputs)
        for input in 0..<inputs {
            // The rows' addresses are taken outside the loop: an index computed inside is checked
            // for overflow on every weight, which kept the loop scalar.
            let (row, widenedRow, inputScale) = (values + input * outputs, copy + input * outputs, scales.input[input])
            for output in 0..<outputs {
                widenedRow[output] = Float(row[output]) * scales.weight[output] * inputScale
            }
        }
        return UnsafePointer(copy)
    }

    func floats(_ tensor: Tensor) -> UnsafePointer<Float> {
        file.withFloats(tensor) { floats in
            if tensor.dtype == .f32 { return floats }
            let copy = allocate(tensor.count)
            copy.initialize(from: floats, count: tensor.count)
            return UnsafePointer(copy)
        }
    }
}
