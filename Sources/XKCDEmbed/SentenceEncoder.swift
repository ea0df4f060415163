import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Turns text into a sentence embedding with all-MiniLM-L6-v2, as sentence-transformers does:
/// BERT's tokenizer, the BERT encoder, mean pooling over the tokens, L2 normalisation.
///
/// The weights stay in the mapped model file; each call has its own scratch space, so one encoder
/// may embed on several threads at once.
///
/// ```swift
/// guard let directory = SentenceEncoder.locateModel() else { … }
/// let encoder = try SentenceEncoder(modelDirectory: directory)
/// let vector = encoder.embedding(for: "the one where the neural net learned the wrong thing")
/// // vector.count == encoder.dimensions (384), unit length: a dot product is the cosine.
/// ```
public final class SentenceEncoder: Sendable {
    /// What the model file's `__metadata__` calls it, e.g. `all-MiniLM-L6-v2/mixed/7b37d07b5800`:
    /// vectors stored with one identity are comparable only with vectors of the same identity.
    public let identity: String
    /// Whether the encoder's dense layers run in int8: the model's weights are int8, this
    /// processor has VNNI instructions and ``Arithmetic/float32`` was not asked for.
    public var runsInt8: Bool { encoder.runsInt8 }
    /// Whether the int8 products now read their weights packed into oneDNN's layout, as they do
    /// from an encoder's second pass over the weights on (with ``Arithmetic/fastest``, on a
    /// processor whose oneDNN kernel wants that layout).
    public var readsPackedWeights: Bool { encoder.readsPackedWeights }
    /// The length of every embedding (384).
    public var dimensions: Int { encoder.configuration.hiddenSize }
    /// Tokens the model reads, [CLS] and [SEP] included (sentence_bert_config.json's
    /// `max_seq_length`, 256): the rest of a longer text is ignored.
    public let maximumTokens: Int

    private let tokenizer: WordPieceTokenizer
    private let encoder: BertEncoder
    private let normalizes: Bool
    /// The weights file, which the check's failure names.
    private let weightsPath: String
    /// The tokens the check embeds and the vector the converter made of them (nil for a model
    /// converted before it wrote one: then any unit vector passes).
    private let check: (ids: [Int32], vector: [Float]?)

    /// Maps `model.safetensors` in `modelDirectory` and checks it and the configuration against
    /// each other: the tensors' names, shapes and byte ranges, the vocabulary's size, the pooling,
    /// and the vector its weights make of a known text (see ``open(modelDirectory:embedding:)``).
    ///
    /// - Throws: ``EmbedError/modelMissing(path:)`` when the directory or its weights file does
    ///   not exist, ``EmbedError/modelDamaged(path:reason:)`` for anything else wrong with it.
    public convenience init(modelDirectory: URL, arithmetic: Arithmetic = .fastest) throws(EmbedError) {
        try self.init(uncheckedAt: modelDirectory, arithmetic: arithmetic)
        _ = try checkedEmbeddings(forTokenIDs: [])
    }

    /// Opens the model as ``init(modelDirectory:)`` does, and embeds `texts` in the same pass
    /// over the weights as the check: for a process that opens the model to embed a query, for
    /// which the check's pass of its own cost as much as the query's (docs/performance.md).
    ///
    /// - Throws: as ``init(modelDirectory:)``; no vectors come from weights that fail the check.
    public static func open(
        modelDirectory: URL, embedding texts: [String]
    ) throws(EmbedError) -> (encoder: SentenceEncoder, vectors: [[Float]]) {
        let encoder = try SentenceEncoder(uncheckedAt: modelDirectory, arithmetic: .fastest)
        let vectors = try encoder.checkedEmbeddings(forTokenIDs: texts.map(encoder.tokenIDs(for:)))
        return (encoder, vectors)
    }

    /// Everything of ``init(modelDirectory:)`` but the check of the weights.
    private init(uncheckedAt modelDirectory: URL, arithmetic: Arithmetic) throws(EmbedError) {
        // A file is no model directory (XKCD_SEARCH_MODEL set to the wrong place).
        var status = stat()
        guard stat(modelDirectory.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw .modelMissing(path: modelDirectory.path)
        }
        guard access(modelDirectory.path, R_OK | X_OK) == 0,
            access(modelDirectory.appending(path: "model.safetensors").path, R_OK) == 0 || errno != EACCES
        else {
            throw .modelUnreadable(path: modelDirectory.path)
        }
        // Nor is a directory holding neither the model's settings nor its weights: a damaged
        // model has some of its files.
        guard
            ["config.json", "model.safetensors"].contains(where: {
                FileManager.default.fileExists(atPath: modelDirectory.appending(path: $0).path)
            })
        else {
            throw .modelMissing(path: modelDirectory.path)
        }
        let configuration = try Self.read(BertConfiguration.self, "config.json", in: modelDirectory)
        let sentenceConfiguration = try Self.read(
            SentenceConfiguration.self, "sentence_bert_config.json", in: modelDirectory)
        let pooling = try Self.read(PoolingConfiguration.self, "1_Pooling/config.json", in: modelDirectory)
        let modules = try Self.read([Module].self, "modules.json", in: modelDirectory)

        let configurationPath = modelDirectory.appending(path: "config.json").path
        guard configuration.hasPositiveSizes, configuration.maximumPositions >= 2 else {
            throw .modelDamaged(
                path: configurationPath, reason: "a size is too small (zero or negative, or fewer than 2 positions)")
        }
        guard configuration.activation == "gelu" else {
            throw .modelDamaged(
                path: configurationPath, reason: "activation \(configuration.activation), expected gelu")
        }
        guard configuration.hiddenSize % configuration.headCount == 0 else {
            throw .modelDamaged(path: configurationPath, reason: "the hidden size does not divide into the heads")
        }
        guard pooling.isMeanOnly, pooling.dimensions == configuration.hiddenSize else {
            throw .modelDamaged(
                path: modelDirectory.appending(path: "1_Pooling/config.json").path,
                reason: "only mean pooling over the hidden states is supported")
        }
        guard 2...configuration.maximumPositions ~= sentenceConfiguration.maximumSequenceLength else {
            throw .modelDamaged(
                path: modelDirectory.appending(path: "sentence_bert_config.json").path,
                reason: "max_seq_length must be between 2 and \(configuration.maximumPositions)")
        }

        let file = try ModelFile(path: modelDirectory.appending(path: "model.safetensors").path)
        guard let identity = file.metadata["identity"], !identity.isEmpty else {
            throw .modelDamaged(
                path: file.path, reason: "__metadata__ has no identity (not converted by scripts/convert-model.py?)")
        }
        self.identity = identity
        encoder = try BertEncoder(file: file, configuration: configuration, arithmetic: arithmetic)
        tokenizer = try WordPieceTokenizer(
            vocabularyAt: modelDirectory.appending(path: "vocab.txt"), expectedCount: configuration.vocabularySize)
        maximumTokens = sentenceConfiguration.maximumSequenceLength
        normalizes = modules.contains { $0.type == "sentence_transformers.models.Normalize" }
        weightsPath = file.path
        check = try Self.check(
            in: file, tokenizer: tokenizer, maximumTokens: maximumTokens, dimensions: configuration.hiddenSize)
    }

    /// The text the model embeds when opened, to check its weights, when the model file holds
    /// no reference of its own.
    static let checkText = "comic"

    /// The check's tokens and reference vector: `__metadata__`'s `check_tokens` and
    /// `check_vector`, which scripts/convert-model.py computes from the original weights; a model
    /// converted before those were written embeds ``checkText``, which must make a unit vector.
    private static func check(
        in file: ModelFile, tokenizer: WordPieceTokenizer, maximumTokens: Int, dimensions: Int
    ) throws(EmbedError) -> (ids: [Int32], vector: [Float]?) {
        guard let tokens = file.metadata["check_tokens"], let reference = file.metadata["check_vector"] else {
            let pieces = tokenizer.pieceIDs(for: checkText)
            return ([tokenizer.classifierID] + pieces + [tokenizer.separatorID], nil)
        }
        let ids = tokens.split(separator: " ").compactMap { Int32($0) }
        let values = reference.split(separator: " ").compactMap { Float($0) }
        guard (2...maximumTokens).contains(ids.count),
            ids.allSatisfy({ $0 >= 0 && Int($0) < tokenizer.vocabularyCount }),
            values.count == dimensions
        else {
            throw .modelDamaged(
                path: file.path,
                reason: "__metadata__'s check_tokens or check_vector is not what scripts/convert-model.py writes")
        }
        return (ids, values)
    }

    /// The embeddings of `sequences`, made in one pass with the check's tokens; throws unless the
    /// weights make the check's vector (its cosine with the reference at least 0.99).
    ///
    /// Weights with NaN, infinities or zeros in any layer make NaN, a zero vector or another
    /// vector of every text, which would otherwise keep comics out of search by meaning without
    /// a word. The check's few tokens ([CLS], a word, [SEP]) read every layer's weights, which
    /// the sequences' pass reads anyway: alone, its pass cost a query process 6 ms.
    private func checkedEmbeddings(forTokenIDs sequences: [[Int32]]) throws(EmbedError) -> [[Float]] {
        let vectors = embeddings(forTokenIDs: [check.ids] + sequences)
        let vector = vectors[0]
        var (dot, norm, expectedNorm): (Double, Double, Double) = (0, 0, 0)
        for (index, value) in vector.enumerated() {
            let reference = Double(check.vector?[index] ?? value)
            dot += Double(value) * reference
            norm += Double(value) * Double(value)
            expectedNorm += reference * reference
        }
        // The cosine with the reference (with the vector itself, without one): NaN fails too.
        let cosine = dot / (norm.squareRoot() * expectedNorm.squareRoot())
        guard cosine >= 0.99, !normalizes || abs(norm - 1) <= 1e-3 else {
            throw .modelDamaged(
                path: weightsPath,
                reason:
                    "its weights are broken (NaN, infinite, zero or changed): its vector of a known text is not the one it made when converted"
            )
        }
        return Array(vectors.dropFirst())
    }

    /// The ids the model reads for `text`: [CLS], the WordPiece ids cut to fit, [SEP].
    ///
    /// Only as much of the text is split as the model reads: an explanation runs to tens of
    /// kilobytes, of which the model reads the first 256 tokens. A start of the text ending at a
    /// space or a line break splits into the same first tokens as the whole text.
    public func tokenIDs(for text: String) -> [Int32] {
        let limit = maximumTokens - 2
        var length = 4096
        var pieces: [Int32]
        while true {
            let start = Self.start(of: text, cutAtWhitespaceWithin: length)
            pieces = tokenizer.pieceIDs(for: start.map(String.init) ?? text)
            if start == nil || pieces.count >= limit { break }
            length *= 4
        }
        return [tokenizer.classifierID] + pieces.prefix(limit) + [tokenizer.separatorID]
    }

    /// The start of `text` up to its last space or line break within `length` bytes, or nil when
    /// the text is no longer than that or has no such break there.
    private static func start(of text: String, cutAtWhitespaceWithin length: Int) -> Substring? {
        let utf8 = text.utf8
        guard utf8.count > length else { return nil }
        let end = utf8.index(utf8.startIndex, offsetBy: length)
        guard let cut = utf8[..<end].lastIndex(where: { $0 == 0x20 || $0 == 0x0A }) else { return nil }
        return text[..<cut]
    }

    /// The embedding of `text`: the mean of the encoder's last hidden states over its tokens
    /// ([CLS] and [SEP] included, as the attention mask has them), scaled to unit length.
    ///
    /// Text past ``maximumTokens`` tokens is ignored; an empty text still has [CLS] and [SEP].
    public func embedding(for text: String) -> [Float] {
        embedding(forTokenIDs: tokenIDs(for: text))
    }

    /// The embedding of the tokens `ids`, as ``tokenIDs(for:)`` gives them: for a caller that
    /// needed the tokens anyway (the indexer keeps a digest of them).
    ///
    /// - Precondition: `ids` came from ``tokenIDs(for:)`` of this encoder (a programmer error
    ///   otherwise: they index the model's tables).
    public func embedding(forTokenIDs ids: [Int32]) -> [Float] {
        embeddings(forTokenIDs: [ids])[0]
    }

    /// The embeddings of `texts`, as ``embedding(for:)`` makes each, in as few passes over the
    /// weights as their length allows.
    public func embeddings(for texts: [String]) -> [[Float]] {
        embeddings(forTokenIDs: texts.map(tokenIDs(for:)))
    }

    /// Tokens a pass over the weights takes at most, of several sequences: its buffers grow
    /// with them, and past a few hundred tokens a pass costs its products, not its reading.
    private static let tokensPerPass = 512

    /// The embeddings of `sequences`, several in a pass (up to ``tokensPerPass`` tokens).
    private func embeddings(forTokenIDs sequences: [[Int32]]) -> [[Float]] {
        precondition(
            sequences.allSatisfy { ids in
                ids.count <= maximumTokens && ids.allSatisfy { $0 >= 0 && Int($0) < tokenizer.vocabularyCount }
            },
            "token ids that tokenIDs(for:) did not make")
        var vectors: [[Float]] = []
        var start = sequences.startIndex
        while start < sequences.endIndex {
            var end = start + 1
            var tokens = sequences[start].count
            while end < sequences.endIndex, tokens + sequences[end].count <= Self.tokensPerPass {
                tokens += sequences[end].count
                end += 1
            }
            for (ids, sum) in zip(
                sequences[start..<end], encoder.summedHiddenStates(for: Array(sequences[start..<end])))
            {
                vectors.append(pooled(sum, tokenCount: ids.count))
            }
            start = end
        }
        return vectors
    }

    /// The sentence vector from the sum of a sequence's hidden states.
    private func pooled(_ sum: [Float], tokenCount: Int) -> [Float] {
        var vector = sum
        // Normalising makes the division of the sum by the token count (the mean) redundant.
        let scale: Float
        if normalizes {
            let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            // sentence-transformers' Normalize divides by max(norm, 1e-12).
            scale = 1 / max(norm, 1e-12)
        } else {
            scale = 1 / Float(tokenCount)
        }
        for index in vector.indices { vector[index] *= scale }
        return vector
    }

    /// The model directory the executables use: `XKCD_SEARCH_MODEL` when set (even if nothing
    /// is there, so that a wrong setting is reported rather than passed over); else the first of
    /// `<executable's directory>/../share/xkcd-search/model` (the installed layout, and the one
    /// `make model` puts beside the builds in `.build`) and `$XDG_DATA_HOME/xkcd-search/model`
    /// (`~/.local/share` by default) that holds a `model.safetensors`.
    ///
    /// - Parameter environment: looks up one variable (`getenv` by default: `ProcessInfo`
    ///   copies the whole environment on every use).
    /// - Returns: nil when no candidate holds a model.
    public static func locateModel(
        environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }
    ) -> URL? {
        if let path = environment("XKCD_SEARCH_MODEL"), !path.isEmpty {
            return URL(filePath: path, directoryHint: .isDirectory)
        }
        var candidates: [URL] = []
        // /proc/self/exe is the executable with every symbolic link resolved.
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(
                URL(filePath: executable).deletingLastPathComponent().deletingLastPathComponent()
                    .appending(path: "share/xkcd-search/model", directoryHint: .isDirectory))
        }
        if let data = environment("XDG_DATA_HOME"), !data.isEmpty {
            candidates.append(URL(filePath: data).appending(path: "xkcd-search/model", directoryHint: .isDirectory))
        } else if let home = environment("HOME"), !home.isEmpty {
            candidates.append(
                URL(filePath: home).appending(path: ".local/share/xkcd-search/model", directoryHint: .isDirectory))
        }
        // A model this user may not read is found too, so that it is reported as such.
        return candidates.first { candidate in
            access(candidate.appending(path: "model.safetensors").path, F_OK) == 0
                || (errno == EACCES && FileManager.default.fileExists(atPath: candidate.path))
        }
    }

    private static func read<Value: Decodable>(_ type: Value.Type, _ name: String, in directory: URL) throws(EmbedError)
        -> Value
    {
        let url = directory.appending(path: name)
        // Each configuration is under a kilobyte.
        let data = try readRegularFile(url, limit: 1 << 20)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw .modelDamaged(path: url.path, reason: "not the expected JSON")
        }
    }
}

/// sentence_bert_config.json.
private struct SentenceConfiguration: Decodable {
    let maximumSequenceLength: Int

    enum CodingKeys: String, CodingKey {
        case maximumSequenceLength = "max_seq_length"
    }
}

/// 1_Pooling/config.json.
private struct PoolingConfiguration: Decodable {
    let dimensions: Int
    let meanTokens: Bool
    let classToken: Bool
    let maximumTokens: Bool
    let meanSquareRootLengthTokens: Bool

    enum CodingKeys: String, CodingKey {
        case dimensions = "word_embedding_dimension"
        case meanTokens = "pooling_mode_mean_tokens"
        case classToken = "pooling_mode_cls_token"
        case maximumTokens = "pooling_mode_max_tokens"
        case meanSquareRootLengthTokens = "pooling_mode_mean_sqrt_len_tokens"
    }

    var isMeanOnly: Bool { meanTokens && !classToken && !maximumTokens && !meanSquareRootLengthTokens }
}

/// One entry of modules.json: the steps sentence-transformers runs after the encoder.
private struct Module: Decodable {
    let type: String
}

/// How the encoder computes its dense layers when the model's weights are int8.
public enum Arithmetic: Sendable {
    /// int8 products where the processor has VNNI instructions (fast and exact there), else the
    /// weights widened to float32 once, when the model is loaded.
    case fastest
    /// Always the weights widened to float32: to compare the two (Benchmarks/Embed, the tests).
    case float32
    /// As ``fastest``, but the int8 products always read the weights as stored, which oneDNN
    /// copies into its own layout on every product, never packed into it once at the encoder's
    /// second pass: to compare.
    case int8WeightsAsStored
}
