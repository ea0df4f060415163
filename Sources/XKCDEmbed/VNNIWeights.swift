import CDNNL

/// oneDNN's layout for int8 weights on processors with AVX-512 VNNI, `BA16a64b4a`, into which the
/// encoder packs each dense product's weights once at load.
///
/// A VNNI instruction multiplies four consecutive inputs by the same output's four weights, so
/// the kernel wants those four weights side by side. The matrix `[inputs, outputs]` is cut into
/// blocks of 16 inputs × 64 outputs, blocks of the same outputs in a row (outputs outermost);
/// inside a block, each group of four inputs holds, output by output, that output's four weights.
/// After the blocks come, for each output, the negated sum of its column: the product of the
/// source's zero point (128, ``MatrixProducts/sourceZeroPoint``) and this sum is what oneDNN
/// takes back from each result (the "compensation" of an asymmetric source).
///
/// oneDNN's own reorder writes the same bytes, but its generic one took 1.6-2.3 ms a matrix, 40 ms
/// at every load; this loop is what the layout is. ``MatrixProducts`` uses it only where oneDNN
/// says it wants exactly this layout, and a test compares the vectors with those of the weights as
/// stored.
enum VNNIWeights {
    static let formatTag = dnnl_BA16a64b4a
    static let inputBlock = 16
    static let outputBlock = 64
    /// How many inputs a VNNI instruction adds up for one output.
    static let group = 4
    /// The compensation is one value per output: the mask of dimension 1 of `[inputs, outputs]`.
    static let compensationMask: Int32 = 1 << 1

    /// The bytes of the blocks and the compensation (oneDNN's layout may reserve more after).
    static func byteCount(inputs: Int, outputs: Int) -> Int {
        inputs * outputs + outputs * MemoryLayout<Int32>.stride
    }

    /// Packs `weights`, `[inputs, outputs]` row-major, into `packed` (at least ``byteCount(inputs:outputs:)``
    /// bytes, 4-byte aligned). `inputs` must be a multiple of 16 and `outputs` of 64.
    static func pack(
        _ weights: UnsafePointer<Int8>, inputs: Int, outputs: Int, into packed: UnsafeMutableRawPointer
    ) {
        precondition(inputs % inputBlock == 0 && outputs % outputBlock == 0, "unpadded shapes only")
        let blocks = packed.bindMemory(to: Int8.self, capacity: inputs * outputs)
        let blockBytes = inputBlock * outputBlock
        for outputBlockIndex in 0..<outputs / outputBlock {
            for inputBlockIndex in 0..<inputs / inputBlock {
                let block = blocks + (outputBlockIndex * (inputs / inputBlock) + inputBlockIndex) * blockBytes
                for groupIndex in 0..<inputBlock / group {
                    let firstInput = inputBlockIndex * inputBlock + groupIndex * group
                    let rows = weights + firstInput * outputs + outputBlockIndex * outputBlock
                    // An output's four weights as one little-endian word: the compiler turns this
                    // loop into vector shuffles (a byte at a time took 12 ms of every start).
                    let destination = UnsafeMutableRawPointer(block + groupIndex * outputBlock * group)
                        .assumingMemoryBound(to: UInt32.self)
                    let (first, second, third, fourth) = (rows, rows + outputs, rows + 2 * outputs, rows + 3 * outputs)
                    for output in 0..<outputBlock {
                        destination[output] =
                            UInt32(UInt8(bitPattern: first[output])) | UInt32(UInt8(bitPattern: second[output])) << 8
                            | UInt32(UInt8(bitPattern: third[output])) << 16
                            | UInt32(UInt8(bitPattern: fourth[output])) << 24
                    }
                }
            }
        }
        let compensation = (packed + inputs * outputs).bindMemory(to: Int32.self, capacity: outputs)
        compensation.initialize(repeating: 0, count: outputs)
        for input in 0..<inputs {
            // The row's address is taken outside the loop: an index computed inside is checked
            // for overflow on every weight, and the loop stays scalar.
            let row = weights + input * outputs
            for output in 0..<outputs { compensation[output] &-= Int32(row[output]) }
        }
    }
}
