import CDNNL
import FoundationEssentials
import Synchronization

/// The shape of a BERT encoder, from the model's `config.json`.
struct BertConfiguration: Decodable, Sendable {
    let vocabularySize: Int
    let hiddenSize: Int
    let layerCount: Int
    let headCount: Int
    let intermediateSize: Int
    let maximumPositions: Int
    let tokenTypeCount: Int
    let layerNormEpsilon: Float
    let activation: String

    enum CodingKeys: String, CodingKey {
        case vocabularySize = "vocab_size"
        case hiddenSize = "hidden_size"
        case layerCount = "num_hidden_layers"
        case headCount = "num_attention_heads"
        case intermediateSize = "intermediate_size"
        case maximumPositions = "max_position_embeddings"
        case tokenTypeCount = "type_vocab_size"
        case layerNormEpsilon = "layer_norm_eps"
        case activation = "hidden_act"
    }

    /// Whether every count is at least 1, as the loops over them need.
    var hasPositiveSizes: Bool {
        [vocabularySize, hiddenSize, layerCount, headCount, intermediateSize, maximumPositions, tokenTypeCount]
            .allSatisfy { $0 > 0 }
    }
}

/// The BERT forward pass over one sequence, with the weights read from the mapped file.
///
/// The matrix products, softmax and GELU run in oneDNN (``MatrixProducts``), reading the weights
/// where they lie in the mapping; layer norm is a plain loop. One sequence has no padding, so the
/// attention mask is all ones.
struct BertEncoder: Sendable {
    /// `y = x·W + b` with W stored `[inputs, outputs]` (PyTorch's matrix transposed, as
    /// scripts/convert-model.py stores it): float32, or int8 with its scales.
    struct Linear: @unchecked Sendable {
        // @unchecked: the weights are the mapped file's, or converted once at load, and only read.
        /// Float32, or int8 when `scales` is set.
        let weight: UnsafeRawPointer
        let bias: UnsafePointer<Float>
        let scales: QuantizationScales?
    }

    /// What turns an int8 product back into `x·W`: W ≈ diag(1/input)·W₈·diag(weight), where the
    /// input scales are SmoothQuant's (scripts/int8_dense.py).
    struct QuantizationScales: @unchecked Sendable {
        /// One per output column.
        let weight: UnsafePointer<Float>
        /// One per input channel: each input is multiplied by it before it is quantised.
        let input: UnsafePointer<Float>
    }

    struct LayerNorm: Sendable {
        let weight: Tensor
        let bias: Tensor
    }

    struct Layer: Sendable {
        /// Query, key and value at once: `[hidden, 3 × hidden]`.
        let queryKeyValue: Linear
        let attentionOutput: Linear
        let attentionNorm: LayerNorm
        let intermediate: Linear
        let output: Linear
        let outputNorm: LayerNorm
    }

    let configuration: BertConfiguration
    private let file: ModelFile
    private let wordEmbeddings: RowTable
    private let positionEmbeddings: Tensor
    private let tokenTypeEmbeddings: Tensor
    private let embeddingNorm: LayerNorm
    private let layers: [Layer]
    private let products: MatrixProducts
    private let converted: ConvertedWeights
    /// Whether the int8 weights are read as stored or packed into oneDNN's own layout (nil: never
    /// packed, for float32 or as ``Arithmetic/int8WeightsAsStored`` asks).
    private let packing: WeightPacking?

    /// What `__metadata__`'s `dense_weights` says when the dense layers' weights are stored
    /// `[inputs, outputs]` as floats, with Q, K and V as one matrix: oneDNN reads them as they
    /// lie, where PyTorch's `[outputs, inputs]` made it reorder every matrix on every product
    /// (docs/performance.md).
    static let denseWeightsLayout = "inputs-outputs-fused-qkv"
    /// The same, as int8 with scales (scripts/int8_dense.py), quantised as `quantization` says.
    static let int8DenseWeightsLayout = "inputs-outputs-fused-qkv-int8"
    static let quantization = "s8-per-output-column-weights/s8-per-token-activations/smoothquant-0.75"

    /// Finds every tensor the forward pass reads and checks its shape against `configuration`.
    /// With ``Arithmetic/float32`` int8 weights are widened to float32 here, as is done anyway on
    /// a processor without VNNI.
    init(file: ModelFile, configuration: BertConfiguration, arithmetic: Arithmetic) throws(EmbedError) {
        let (hidden, inner) = (configuration.hiddenSize, configuration.intermediateSize)
        // A square matrix has the same shape either way: only the converter's word tells.
        let int8: Bool
        switch file.metadata["dense_weights"] {
        case Self.denseWeightsLayout: int8 = false
        case Self.int8DenseWeightsLayout:
            guard file.metadata["quantization"] == Self.quantization else {
                throw .modelDamaged(
                    path: file.path,
                    reason: "its int8 weights were quantised another way: run `make model` to convert it again")
            }
            int8 = true
        default:
            throw .modelDamaged(
                path: file.path,
                reason:
                    "converted by another version of scripts/convert-model.py (its dense weights are not laid out as this version reads them): run `make model` to convert it again"
            )
        }
        let products = try MatrixProducts(
            hidden: hidden, heads: configuration.headCount, inner: inner, int8: int8 && arithmetic != .float32)
        let converted = ConvertedWeights(file)
        func linear(_ name: String, outputs: Int, inputs: Int) throws(EmbedError) -> Linear {
            let bias = converted.floats(try file.tensor("\(name).bias", shape: [outputs]))
            guard int8 else {
                let weight = converted.floats(try file.tensor("\(name).weight", shape: [inputs, outputs]))
                return Linear(weight: UnsafeRawPointer(weight), bias: bias, scales: nil)
            }
            let weight = try file.tensor("\(name).weight", shape: [inputs, outputs], storedAs: [.i8])
            let scales = QuantizationScales(
                weight: try positiveScales(try file.tensor("\(name).weight_scale", shape: [outputs], storedAs: [.f32])),
                input: try positiveScales(try file.tensor("\(name).input_scale", shape: [inputs], storedAs: [.f32])))
            guard products.usesInt8 else {
                let floats = converted.widened(weight, scales: scales, inputs: inputs, outputs: outputs)
                return Linear(weight: UnsafeRawPointer(floats), bias: bias, scales: nil)
            }
            return Linear(weight: file.address(of: weight), bias: bias, scales: scales)
        }
        /// The scales as they lie in the file, refused unless each is a finite number above zero.
        func positiveScales(_ tensor: Tensor) throws(EmbedError) -> UnsafePointer<Float> {
            let scales = file.address(of: tensor).assumingMemoryBound(to: Float.self)
            for index in 0..<tensor.count where !(scales[index].isFinite && scales[index] > 0) {
                throw .modelDamaged(
                    path: file.path,
                    reason: "its weights are broken: a scale of its int8 weights is not a finite number above zero")
            }
            return scales
        }
        func norm(_ name: String) throws(EmbedError) -> LayerNorm {
            LayerNorm(
                weight: try file.tensor("\(name).weight", shape: [hidden]),
                bias: try file.tensor("\(name).bias", shape: [hidden]))
        }
        self.configuration = configuration
        self.file = file
        // The largest table, of which a query reads only its tokens' rows: float16, or int8 with
        // a scale a row (scripts/convert-model.py's layouts, docs/footprint.md).
        wordEmbeddings = try file.rowTable(
            "embeddings.word_embeddings.weight", shape: [configuration.vocabularySize, hidden])
        positionEmbeddings = try file.tensor(
            "embeddings.position_embeddings.weight", shape: [configuration.maximumPositions, hidden])
        tokenTypeEmbeddings = try file.tensor(
            "embeddings.token_type_embeddings.weight", shape: [configuration.tokenTypeCount, hidden])
        embeddingNorm = try norm("embeddings.LayerNorm")
        var layers: [Layer] = []
        for index in 0..<configuration.layerCount {
            let prefix = "encoder.layer.\(index)"
            layers.append(
                Layer(
                    queryKeyValue: try linear("\(prefix).attention.qkv", outputs: 3 * hidden, inputs: hidden),
                    attentionOutput: try linear("\(prefix).attention.output.dense", outputs: hidden, inputs: hidden),
                    attentionNorm: try norm("\(prefix).attention.output.LayerNorm"),
                    intermediate: try linear("\(prefix).intermediate.dense", outputs: inner, inputs: hidden),
                    output: try linear("\(prefix).output.dense", outputs: hidden, inputs: inner),
                    outputNorm: try norm("\(prefix).output.LayerNorm")))
        }
        self.layers = layers
        self.converted = converted
        self.products = products
        packing = products.usesInt8 && arithmetic == .fastest ? WeightPacking() : nil
    }

    /// Whether the dense layers' products run in int8 (or in float32).
    var runsInt8: Bool { products.usesInt8 }

    var readsPackedWeights: Bool {
        packing?.state.withLock { state in
            if case .packed = state { return true }
            return false
        } ?? false
    }

    /// The last layer's hidden states of each sequence of `sequences`, one row of `hiddenSize`
    /// floats per token, summed over its rows: the mean pooling's numerator, all the caller needs.
    ///
    /// The sequences go through the dense layers together, as one matrix of all their tokens, so
    /// that each weight is read once for all of them (a short query's pass costs what reading
    /// the weights costs); each attends only to its own tokens. Each id must be a valid
    /// vocabulary id, each sequence at least one and at most `maximumPositions` of them.
    func summedHiddenStates(for sequences: [[Int32]]) -> [[Float]] {
        let rows = sequences.reduce(0) { $0 + $1.count }
        let longest = sequences.map(\.count).max() ?? 0
        let hidden = configuration.hiddenSize
        let inner = configuration.intermediateSize
        let (layers, packed) = layersForThisPass()
        let dense = products.dense(rows: rows, packed: packed)
        let attentions = sequences.map { products.attention(rows: $0.count) }
        let run = products.run(scratchBytes: attentions.map(\.scratchBytes).reduce(dense.scratchBytes, max))
        // Where each sequence's rows start.
        var starts: [Int] = []
        var start = 0
        for sequence in sequences {
            starts.append(start)
            start += sequence.count
        }

        // The scratch space of this call alone, so that calls may run at once on several threads.
        var states = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        // Where the int8 products add the residual into: then it and `states` change places.
        var added = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let queryKeyValue = UnsafeMutablePointer<Float>.allocate(capacity: rows * 3 * hidden)
        let context = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        // The int8 products' quantised rows and their scales, as the int8 products' `linear` fills them.
        let quantized = UnsafeMutablePointer<UInt8>.allocate(capacity: runsInt8 ? rows * inner : 0)
        let scaleTable = UnsafeMutablePointer<Float>.allocate(capacity: runsInt8 ? rows * max(inner, 3 * hidden) : 0)
        let scores = UnsafeMutablePointer<Float>.allocate(capacity: configuration.headCount * longest * longest)
        let wide = UnsafeMutablePointer<Float>.allocate(capacity: rows * inner)
        // One sequence's heads' blocks, dense: queries, keys transposed, values, context.
        let (headQuery, headKey, headValue, headContext) = (
            UnsafeMutablePointer<Float>.allocate(capacity: longest * hidden),
            UnsafeMutablePointer<Float>.allocate(capacity: longest * hidden),
            UnsafeMutablePointer<Float>.allocate(capacity: longest * hidden),
            UnsafeMutablePointer<Float>.allocate(capacity: longest * hidden)
        )
        defer {
            for buffer in [
                states, added, queryKeyValue, context, scores, wide, scaleTable, headQuery, headKey, headValue,
                headContext,
            ] {
                buffer.deallocate()
            }
            quantized.deallocate()
        }
        let (heads, headSize) = (configuration.headCount, hidden / configuration.headCount)

        // Embeddings: word + position (from 0 in each sequence) + token type 0, then layer norm.
        states.initialize(repeating: 0, count: rows * hidden)
        for (sequence, ids) in sequences.enumerated() {
            for (position, id) in ids.enumerated() {
                let row = states + (starts[sequence] + position) * hidden
                file.addRow(Int(id), of: wordEmbeddings, to: row)
                file.addRow(position, of: positionEmbeddings, to: row)
                file.addRow(0, of: tokenTypeEmbeddings, to: row)
            }
        }
        normalize(states, rows: rows, with: embeddingNorm)

        /// `output = input·W + b`, or for the residual products `states += input·W + b`.
        func linear(
            _ primitive: MatrixProducts.Primitive, _ linear: Linear, _ input: UnsafePointer<Float>,
            inputs: Int, outputs: Int, _ output: UnsafeMutablePointer<Float>, addsResidual: Bool = false
        ) {
            guard let scales = linear.scales else {
                run(
                    primitive,
                    [
                        DNNL_ARG_SRC: UnsafeRawPointer(input), DNNL_ARG_WEIGHTS: linear.weight,
                        DNNL_ARG_BIAS: UnsafeRawPointer(linear.bias), DNNL_ARG_DST: UnsafeRawPointer(output),
                    ])
                return
            }
            // Each row quantised on its own scale (its largest |x·input scale| is 127), so a
            // text's vector does not depend on what else is in the pass; the table of each row's
            // scale times each column's turns the integer product back into floats.
            for row in 0..<rows {
                let step = quantizeRow(
                    input + row * inputs, scaledBy: scales.input, count: inputs, into: quantized + row * inputs)
                let rowScales = scaleTable + row * outputs
                for column in 0..<outputs { rowScales[column] = step * scales.weight[column] }
            }
            var buffers: [Int32: UnsafeRawPointer] = [
                DNNL_ARG_SRC: UnsafeRawPointer(quantized), DNNL_ARG_WEIGHTS: linear.weight,
                DNNL_ARG_DST: UnsafeRawPointer(addsResidual ? added : output),
                MatrixProducts.postOpOperand(0): UnsafeRawPointer(scaleTable),
                MatrixProducts.postOpOperand(1): UnsafeRawPointer(linear.bias),
            ]
            if addsResidual { buffers[MatrixProducts.postOpOperand(2)] = UnsafeRawPointer(states) }
            run(primitive, buffers)
            if addsResidual { swap(&states, &added) }
        }
        /// Every head of one sequence at once: scores = Q_h·K_hᵀ/√d, softmax, context_h = scores·V_h.
        func attend(_ attention: MatrixProducts.Attention, rows: Int, from first: Int) {
            for row in 0..<rows {
                // Q, K and V lie side by side in each row of `queryKeyValue`.
                let query = queryKeyValue + (first + row) * 3 * hidden
                let (key, value) = (query + hidden, query + 2 * hidden)
                for head in 0..<heads {
                    let (from, to) = (head * headSize, (head * rows + row) * headSize)
                    (headQuery + to).update(from: query + from, count: headSize)
                    (headValue + to).update(from: value + from, count: headSize)
                    for column in 0..<headSize { headKey[(head * headSize + column) * rows + row] = key[from + column] }
                }
            }
            run(
                attention.scores,
                [
                    DNNL_ARG_SRC: UnsafeRawPointer(headQuery), DNNL_ARG_WEIGHTS: UnsafeRawPointer(headKey),
                    DNNL_ARG_DST: UnsafeRawPointer(scores),
                ])
            run(attention.softmax, [DNNL_ARG_SRC: UnsafeRawPointer(scores), DNNL_ARG_DST: UnsafeRawPointer(scores)])
            run(
                attention.context,
                [
                    DNNL_ARG_SRC: UnsafeRawPointer(scores), DNNL_ARG_WEIGHTS: UnsafeRawPointer(headValue),
                    DNNL_ARG_DST: UnsafeRawPointer(headContext),
                ])
            for row in 0..<rows {
                for head in 0..<heads {
                    (context + (first + row) * hidden + head * headSize).update(
                        from: headContext + (head * rows + row) * headSize, count: headSize)
                }
            }
        }
        for layer in layers {
            linear(dense.projection, layer.queryKeyValue, states, inputs: hidden, outputs: 3 * hidden, queryKeyValue)
            for (sequence, attention) in attentions.enumerated() {
                attend(attention, rows: sequences[sequence].count, from: starts[sequence])
            }
            // states = LayerNorm(context·W + b + states)
            linear(
                dense.projectionAdded, layer.attentionOutput, context, inputs: hidden, outputs: hidden, states,
                addsResidual: true)
            normalize(states, rows: rows, with: layer.attentionNorm)
            // states = LayerNorm(GELU(states·W₁ + b₁)·W₂ + b₂ + states)
            linear(dense.expansion, layer.intermediate, states, inputs: hidden, outputs: inner, wide)
            linear(
                dense.contractionAdded, layer.output, wide, inputs: inner, outputs: hidden, states, addsResidual: true)
            normalize(states, rows: rows, with: layer.outputNorm)
        }

        return sequences.indices.map { sequence in
            var sum = [Float](repeating: 0, count: hidden)
            for row in starts[sequence]..<starts[sequence] + sequences[sequence].count {
                for column in 0..<hidden { sum[column] += states[row * hidden + column] }
            }
            return sum
        }
    }

    /// The layers a pass reads, and whether their int8 weights are packed. oneDNN's int8 kernel
    /// copies weights stored `[inputs, outputs]` into its own layout on every product, half of a
    /// short query's time (docs/int8.md); packed once, they are read as they are. Packing costs
    /// about 8 ms (10.6 MB copied into fresh memory), more than a one-shot search's single pass
    /// saves, so the weights are packed at a process's second pass: the REPL, the server and the
    /// indexer pay once, a one-shot search never.
    private func layersForThisPass() -> (layers: [Layer], packed: Bool) {
        guard let packing else { return (layers, false) }
        return packing.state.withLock { state in
            switch state {
            case .unused:
                state = .passedOnce
                return (layers, false)
            case .passedOnce:
                guard let packed = packedLayers() else {
                    state = .asStored
                    return (layers, false)
                }
                state = .packed(packed)
                return (packed, true)
            case .packed(let packed): return (packed, true)
            case .asStored: return (layers, false)
            }
        }
    }

    /// The layers with their int8 weights packed, or nil where oneDNN wants another layout than
    /// the one ``VNNIWeights`` packs (its AVX2-VNNI kernel reads them as stored).
    private func packedLayers() -> [Layer]? {
        let (hidden, inner) = (configuration.hiddenSize, configuration.intermediateSize)
        func packed(_ linear: Linear, inputs: Int, outputs: Int) -> Linear? {
            guard let bytes = products.packedWeightsByteCount(inputs: inputs, outputs: outputs) else { return nil }
            let weights = converted.packed(
                linear.weight.assumingMemoryBound(to: Int8.self), inputs: inputs, outputs: outputs, byteCount: bytes)
            return Linear(weight: weights, bias: linear.bias, scales: linear.scales)
        }
        var packedLayers: [Layer] = []
        for layer in layers {
            guard let queryKeyValue = packed(layer.queryKeyValue, inputs: hidden, outputs: 3 * hidden),
                let attentionOutput = packed(layer.attentionOutput, inputs: hidden, outputs: hidden),
                let intermediate = packed(layer.intermediate, inputs: hidden, outputs: inner),
                let output = packed(layer.output, inputs: inner, outputs: hidden)
            else { return nil }
            packedLayers.append(
                Layer(
                    queryKeyValue: queryKeyValue, attentionOutput: attentionOutput, attentionNorm: layer.attentionNorm,
                    intermediate: intermediate, output: output, outputNorm: layer.outputNorm))
        }
        return packedLayers
    }

    /// Layer norm of each row in place: zero mean, unit variance, then the learned scale and shift.
    private func normalize(_ matrix: UnsafeMutablePointer<Float>, rows: Int, with norm: LayerNorm) {
        let width = configuration.hiddenSize
        let epsilon = configuration.layerNormEpsilon
        file.withFloats(norm.weight) { weight in
            file.withFloats(norm.bias) { bias in
                for row in 0..<rows {
                    let values = matrix + row * width
                    var mean: Float = 0
                    for column in 0..<width { mean += values[column] }
                    mean /= Float(width)
                    var variance: Float = 0
                    for column in 0..<width {
                        let difference = values[column] - mean
                        variance += difference * difference
                    }
                    let inverse = 1 / (variance / Float(width) + epsilon).squareRoot()
                    for column in 0..<width {
                        values[column] = (values[column] - mean) * inverse * weight[column] + bias[column]
                    }
                }
            }
        }
    }
}

/// When the int8 weights are packed (``BertEncoder/layersForThisPass()``).
private final class WeightPacking: Sendable {
    enum State {
        case unused
        case passedOnce
        case packed([BertEncoder.Layer])
        /// oneDNN wants another layout here: the weights are read as stored.
        case asStored
    }

    let state = Mutex<State>(.unused)
}
