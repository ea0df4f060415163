import CDNNL
import Foundation

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
    /// scripts/convert-model.py stores it), as float32.
    struct Linear: @unchecked Sendable {
        // @unchecked: the floats are the mapped file's, or converted once at load, and only read.
        let weight: UnsafePointer<Float>
        let bias: UnsafePointer<Float>
    }

    struct LayerNorm: Sendable {
        let weight: Tensor
        let bias: Tensor
    }

    struct Layer: Sendable {
        let query: Linear
        let key: Linear
        let value: Linear
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
    private let converted: ConvertedFloats

    /// What `__metadata__`'s `dense_weights` says when the dense layers' weights are stored
    /// `[inputs, outputs]`: oneDNN reads them as they lie, where PyTorch's `[outputs, inputs]`
    /// made it reorder every matrix on every product (docs/performance.md).
    static let denseWeightsLayout = "inputs-outputs"

    /// Finds every tensor the forward pass reads and checks its shape against `configuration`.
    init(file: ModelFile, configuration: BertConfiguration) throws(EmbedError) {
        let (hidden, inner) = (configuration.hiddenSize, configuration.intermediateSize)
        // A square matrix has the same shape either way: only the converter's word tells.
        guard file.metadata["dense_weights"] == Self.denseWeightsLayout else {
            throw .modelDamaged(
                path: file.path,
                reason:
                    "converted by an older scripts/convert-model.py: its dense weights are not stored [inputs, outputs]"
            )
        }
        let converted = ConvertedFloats(file)
        func linear(_ name: String, outputs: Int, inputs: Int) throws(EmbedError) -> Linear {
            Linear(
                weight: converted.floats(try file.tensor("\(name).weight", shape: [inputs, outputs])),
                bias: converted.floats(try file.tensor("\(name).bias", shape: [outputs])))
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
                    query: try linear("\(prefix).attention.self.query", outputs: hidden, inputs: hidden),
                    key: try linear("\(prefix).attention.self.key", outputs: hidden, inputs: hidden),
                    value: try linear("\(prefix).attention.self.value", outputs: hidden, inputs: hidden),
                    attentionOutput: try linear("\(prefix).attention.output.dense", outputs: hidden, inputs: hidden),
                    attentionNorm: try norm("\(prefix).attention.output.LayerNorm"),
                    intermediate: try linear("\(prefix).intermediate.dense", outputs: inner, inputs: hidden),
                    output: try linear("\(prefix).output.dense", outputs: hidden, inputs: inner),
                    outputNorm: try norm("\(prefix).output.LayerNorm")))
        }
        self.layers = layers
        self.converted = converted
        products = try MatrixProducts(
            hidden: hidden, heads: configuration.headCount, inner: inner)
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
        let dense = products.dense(rows: rows)
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
        let states = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let query = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let key = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let value = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let context = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
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
                states, query, key, value, context, scores, wide, headQuery, headKey, headValue, headContext,
            ] {
                buffer.deallocate()
            }
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

        func linear(
            _ primitive: MatrixProducts.Primitive, _ linear: Linear, _ input: UnsafePointer<Float>,
            _ output: UnsafeMutablePointer<Float>
        ) {
            run(
                primitive,
                [
                    DNNL_ARG_SRC: UnsafeRawPointer(input), DNNL_ARG_WEIGHTS: UnsafeRawPointer(linear.weight),
                    DNNL_ARG_BIAS: UnsafeRawPointer(linear.bias), DNNL_ARG_DST: UnsafeRawPointer(output),
                ])
        }
        /// Every head of one sequence at once: scores = Q_h·K_hᵀ/√d, softmax, context_h = scores·V_h.
        func attend(_ attention: MatrixProducts.Attention, rows: Int, from first: Int) {
            for row in 0..<rows {
                for head in 0..<heads {
                    let (from, to) = ((first + row) * hidden + head * headSize, (head * rows + row) * headSize)
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
            linear(dense.projection, layer.query, states, query)
            linear(dense.projection, layer.key, states, key)
            linear(dense.projection, layer.value, states, value)
            for (sequence, attention) in attentions.enumerated() {
                attend(attention, rows: sequences[sequence].count, from: starts[sequence])
            }
            // states = LayerNorm(context·W + b + states)
            linear(dense.projectionAdded, layer.attentionOutput, context, states)
            normalize(states, rows: rows, with: layer.attentionNorm)
            // states = LayerNorm(GELU(states·W₁ + b₁)·W₂ + b₂ + states)
            linear(dense.expansion, layer.intermediate, states, wide)
            linear(dense.contractionAdded, layer.output, wide, states)
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

/// The layers' tensors as float32: the mapped bytes when the file stores float32 (the `mixed` and
/// `int8` layouts), else a copy converted once, when the model is loaded, and kept with it.
private final class ConvertedFloats: @unchecked Sendable {
    // @unchecked: filled while the encoder is made, only read after.
    private let file: ModelFile
    private var copies: [UnsafeMutablePointer<Float>] = []

    init(_ file: ModelFile) {
        self.file = file
    }

    deinit {
        for copy in copies { copy.deallocate() }
    }

    func floats(_ tensor: Tensor) -> UnsafePointer<Float> {
        file.withFloats(tensor) { floats in
            if tensor.dtype == .f32 { return floats }
            let copy = UnsafeMutablePointer<Float>.allocate(capacity: tensor.count)
            copy.initialize(from: floats, count: tensor.count)
            copies.append(copy)
            return UnsafePointer(copy)
        }
    }
}
