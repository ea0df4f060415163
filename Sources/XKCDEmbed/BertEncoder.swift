import COpenBLAS
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
/// Every matrix product goes through `cblas_sgemm`; the element-wise steps (layer norm, softmax,
/// GELU) are plain loops. One sequence has no padding, so the attention mask is all ones.
struct BertEncoder: Sendable {
    /// `y = x·Wᵀ + b` with W stored as PyTorch stores it, `[outputs, inputs]`.
    struct Linear: Sendable {
        let weight: Tensor
        let bias: Tensor
        var outputs: Int { weight.shape[0] }
        var inputs: Int { weight.shape[1] }
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

    /// Finds every tensor the forward pass reads and checks its shape against `configuration`.
    init(file: ModelFile, configuration: BertConfiguration) throws(EmbedError) {
        _ = singleThreadedBLAS
        let (hidden, inner) = (configuration.hiddenSize, configuration.intermediateSize)
        func linear(_ name: String, outputs: Int, inputs: Int) throws(EmbedError) -> Linear {
            Linear(
                weight: try file.tensor("\(name).weight", shape: [outputs, inputs]),
                bias: try file.tensor("\(name).bias", shape: [outputs]))
        }
        func norm(_ name: String) throws(EmbedError) -> LayerNorm {
            LayerNorm(weight: try file.tensor("\(name).weight", shape: [hidden]), bias: try file.tensor("\(name).bias", shape: [hidden]))
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
    }

    /// The last layer's hidden states for `ids`, one row of `hiddenSize` floats per token, summed
    /// over the rows: the mean pooling's numerator, all the caller needs.
    ///
    /// `ids` must be valid vocabulary ids, at most `maximumPositions` of them.
    func summedHiddenStates(for ids: [Int32]) -> [Float] {
        let rows = ids.count
        let hidden = configuration.hiddenSize
        let heads = configuration.headCount
        let headSize = hidden / heads
        let inner = configuration.intermediateSize

        // The scratch space of this call alone, so that calls may run at once on several threads.
        let states = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let query = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let key = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let value = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let context = UnsafeMutablePointer<Float>.allocate(capacity: rows * hidden)
        let scores = UnsafeMutablePointer<Float>.allocate(capacity: rows * rows)
        let wide = UnsafeMutablePointer<Float>.allocate(capacity: rows * inner)
        defer {
            for buffer in [states, query, key, value, context, scores, wide] { buffer.deallocate() }
        }

        // Embeddings: word + position + token type 0, then layer norm.
        states.initialize(repeating: 0, count: rows * hidden)
        for (position, id) in ids.enumerated() {
            let row = states + position * hidden
            file.addRow(Int(id), of: wordEmbeddings, to: row)
            file.addRow(position, of: positionEmbeddings, to: row)
            file.addRow(0, of: tokenTypeEmbeddings, to: row)
        }
        normalize(states, rows: rows, with: embeddingNorm)

        let scale = 1 / Float(headSize).squareRoot()
        for layer in layers {
            apply(layer.query, to: states, rows: rows, into: query)
            apply(layer.key, to: states, rows: rows, into: key)
            apply(layer.value, to: states, rows: rows, into: value)
            for head in 0..<heads {
                let column = head * headSize
                // scores = Q_h · K_hᵀ / √d, both read in place from the [rows, hidden] matrices.
                cblas_sgemm(
                    CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(rows), Int32(headSize),
                    scale, query + column, Int32(hidden), key + column, Int32(hidden), 0, scores, Int32(rows))
                softmaxRows(scores, rows: rows, columns: rows)
                // context_h = softmax(scores) · V_h, written into the head's columns.
                cblas_sgemm(
                    CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(rows), Int32(headSize), Int32(rows),
                    1, scores, Int32(rows), value + column, Int32(hidden), 0, context + column, Int32(hidden))
            }
            // states = LayerNorm(context·Wᵀ + b + states)
            apply(layer.attentionOutput, to: context, rows: rows, into: states, accumulating: true)
            normalize(states, rows: rows, with: layer.attentionNorm)
            apply(layer.intermediate, to: states, rows: rows, into: wide)
            for index in 0..<rows * inner { wide[index] = gelu(wide[index]) }
            apply(layer.output, to: wide, rows: rows, into: states, accumulating: true)
            normalize(states, rows: rows, with: layer.outputNorm)
        }

        var sum = [Float](repeating: 0, count: hidden)
        for row in 0..<rows {
            for column in 0..<hidden { sum[column] += states[row * hidden + column] }
        }
        return sum
    }

    /// `output = input·Wᵀ + b`, or `output += input·Wᵀ + b` (the residual connection) when
    /// `accumulating`.
    private func apply(
        _ linear: Linear, to input: UnsafePointer<Float>, rows: Int, into output: UnsafeMutablePointer<Float>,
        accumulating: Bool = false
    ) {
        let (outputs, inputs) = (linear.outputs, linear.inputs)
        file.withFloats(linear.bias) { bias in
            for row in 0..<rows {
                let destination = output + row * outputs
                if accumulating {
                    for column in 0..<outputs { destination[column] += bias[column] }
                } else {
                    destination.update(from: bias, count: outputs)
                }
            }
        }
        file.withFloats(linear.weight) { weight in
            cblas_sgemm(
                CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(outputs), Int32(inputs),
                1, input, Int32(inputs), weight, Int32(inputs), 1, output, Int32(outputs))
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

/// OpenBLAS on one thread per call: a query's matrices are too small for a second thread to pay
/// (a whole process cost 24.7 ms of CPU with two threads against 22.7 ms with one, and a shared
/// machine made the two-thread timings erratic), and the indexer runs its own tasks in parallel.
/// Debian's pthread variant still locks its buffers, so calls from several threads are safe.
/// Set once, lazily, as Swift initialises globals.
private let singleThreadedBLAS: Void = openblas_set_num_threads(1)

/// Softmax of each row in place, the row's maximum subtracted first so that exp cannot overflow.
private func softmaxRows(_ matrix: UnsafeMutablePointer<Float>, rows: Int, columns: Int) {
    for row in 0..<rows {
        let values = matrix + row * columns
        var maximum = -Float.infinity
        for column in 0..<columns { maximum = max(maximum, values[column]) }
        var total: Float = 0
        for column in 0..<columns {
            values[column] = exp(values[column] - maximum)
            total += values[column]
        }
        for column in 0..<columns { values[column] /= total }
    }
}

/// GELU in its exact form, `x·Φ(x)` through erf, as the model's "gelu" is (not the tanh
/// approximation).
private func gelu(_ x: Float) -> Float {
    0.5 * x * (1 + erf(x / Float(2).squareRoot()))
}
