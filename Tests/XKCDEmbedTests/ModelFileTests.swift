import Foundation
import Testing
import XKCDEmbed
import _XKCDTestSupport

/// Broken copies of the real model: each must give an ``EmbedError`` with a one-line message,
/// never a trap or a read past the end of the file.
/// Serialized: each test embeds (or copies the model) without awaiting, holding one of Swift's
/// few task threads the while; run side by side they held them all for seconds, and every async
/// test of the process (the fixture server, timed HTTP requests) stalled behind them.
@Suite(.serialized) struct ModelFileTests {
    /// A copy of the model directory in a fresh temporary directory, whose files are linked to
    /// the originals except those `damage` rewrites.
    private func damagedCopy(_ damage: (URL) throws -> Void) throws -> URL {
        let original = try realModelDirectory()
        let copy = try makeTemporaryDirectory("xkcd-embed").appending(path: "model")
        try FileManager.default.copyItem(at: original, to: copy)
        try damage(copy)
        return copy
    }

    /// Opened alone or with texts to embed in the same pass as its check, the model is refused.
    private func expectDamaged(_ directory: URL, mentioning part: String) {
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let openers: [(String, () throws(EmbedError) -> Void)] = [
            ("init", { () throws(EmbedError) in _ = try SentenceEncoder(modelDirectory: directory) }),
            (
                "open",
                { () throws(EmbedError) in
                    _ = try SentenceEncoder.open(modelDirectory: directory, embedding: ["a query"])
                }
            ),
        ]
        for (name, open) in openers {
            do throws(EmbedError) {
                try open()
                Issue.record("a damaged model loaded (\(name))")
            } catch {
                guard case .modelDamaged(let path, let reason) = error else {
                    Issue.record("expected modelDamaged, got \(error) (\(name))")
                    continue
                }
                #expect(path.hasPrefix(directory.path))
                #expect(reason.contains(part), "reason: \(reason) (\(name))")
                #expect(!error.description.contains("\n"))
            }
        }
    }

    private func rewriteWeights(in directory: URL, _ change: (inout Data) -> Void) throws {
        let url = directory.appending(path: "model.safetensors")
        var data = try Data(contentsOf: url)
        change(&data)
        // Replaced, not written through: the copy may be a hard link to the real model.
        try FileManager.default.removeItem(at: url)
        try data.write(to: url)
    }

    /// Replaces the first `old` in the JSON header by `new`, which has the same length.
    private func replaceInHeader(_ old: String, _ new: String, in data: inout Data) {
        precondition(old.utf8.count == new.utf8.count, "test programmer error: lengths differ")
        let length = Int(data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        let range = data.range(of: Data(old.utf8), in: 8..<8 + length)!
        data.replaceSubrange(range, with: Data(new.utf8))
    }

    @Test func missingDirectory() throws {
        let directory = try makeTemporaryDirectory("xkcd-embed").appending(path: "nowhere")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        #expect(throws: EmbedError.modelMissing(path: directory.path)) {
            try SentenceEncoder(modelDirectory: directory)
        }
    }

    /// XKCD_SEARCH_MODEL naming a file, or a directory with no model in it, names no model.
    @Test func aFileOrAnEmptyDirectoryIsNoModel() throws {
        let directory = try makeTemporaryDirectory("xkcd-embed")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "notes.txt")
        try Data("not a model".utf8).write(to: file)
        for path in [directory, file] {
            #expect(throws: EmbedError.modelMissing(path: path.path)) { try SentenceEncoder(modelDirectory: path) }
        }
    }

    @Test func missingWeights() throws {
        let directory = try damagedCopy {
            try FileManager.default.removeItem(at: $0.appending(path: "model.safetensors"))
        }
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        #expect(throws: EmbedError.modelMissing(path: directory.appending(path: "model.safetensors").path)) {
            try SentenceEncoder(modelDirectory: directory)
        }
    }

    @Test(arguments: [0, 4, 8, 200, 5000, 20_000_000])
    func truncatedWeights(keeping length: Int) throws {
        let directory = try damagedCopy { directory in
            try rewriteWeights(in: directory) { $0 = $0.prefix(length) }
        }
        let part =
            switch length {
            case ..<8: "too short"
            case ..<20_000: "header"
            default: "past the end"
            }
        expectDamaged(directory, mentioning: part)
    }

    @Test func headerLengthPastTheEnd() throws {
        let directory = try damagedCopy { directory in
            try rewriteWeights(in: directory) { data in
                data.replaceSubrange(0..<8, with: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
            }
        }
        expectDamaged(directory, mentioning: "longer than the file")
    }

    /// One edit of the JSON header that keeps its length, and what the error must name.
    struct HeaderEdit: Sendable, CustomTestStringConvertible {
        let old: String
        let new: String
        let reason: String
        var testDescription: String { "\(old) → \(new)" }
    }

    @Test(arguments: [
        HeaderEdit(old: "{\"__metadata__\"", new: "[\"__metadata__\"", reason: "JSON"),
        HeaderEdit(old: "\"F32\"", new: "\"I32\"", reason: "dtype I32"),
        HeaderEdit(old: "\"shape\":[384]", new: "\"shape\":[192]", reason: "bytes for shape [192]"),
        HeaderEdit(old: "\"data_offsets\":[0,1536]", new: "\"data_offsets\":[2,1538]", reason: "not aligned"),
        HeaderEdit(old: "\"identity\"", new: "\"idemtity\"", reason: "identity"),
        HeaderEdit(
            old: "encoder.layer.5.output.dense.weight", new: "encoder.layer.5.output.dense.weigh_", reason: "no tensor"),
        // Converted before the dense weights were stored [inputs, outputs]: read as they are, its
        // square matrices would pass every shape check and make other vectors.
        HeaderEdit(
            old: "\"dense_weights\"", new: "\"dense_weightz\"", reason: "another version of scripts/convert-model.py"),
        // Quantised by another recipe: its scales would be read as this one's.
        HeaderEdit(
            old: "\"quantization\":\"s8-per-output-column", new: "\"quantization\":\"u8-per-output-column",
            reason: "quantised another way"),
    ])
    func damagedHeader(_ edit: HeaderEdit) throws {
        let directory = try damagedCopy { directory in
            try rewriteWeights(in: directory) { replaceInHeader(edit.old, edit.new, in: &$0) }
        }
        expectDamaged(directory, mentioning: edit.reason)
    }

    /// The real model with its word-embedding table in each layout `scripts/convert-model.py`
    /// stores it (`int8`, the default, and float16 in `mixed`): embeddings within the reference's
    /// bound in both, whichever of them `make model` made.
    @Test(arguments: ["I8", "F16"])
    func bothTableLayoutsMatchTheReference(tableType: String) throws {
        let directory = try damagedCopy { directory in
            try rewriteWeights(in: directory) {
                $0 = tableType == "I8" ? Self.int8Weights(from: $0) : Self.float16Weights(from: $0)
            }
        }
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let encoder = try SentenceEncoder(modelDirectory: directory)
        for reference in Reference.shared.cases {
            let similarity = cosine(encoder.embedding(for: reference.text), reference.embedding)
            #expect(
                similarity >= referenceCosineBound,
                "\(tableType) table, \(String(reflecting: String(reference.text.prefix(40)))): cosine \(similarity)")
        }
    }

    /// Int8 only for the table read a row at a time, and only with its scales.
    @Test(arguments: [
        ("no scales", "no tensor embeddings.word_embeddings.scale"),
        ("int8 layer norm", "embeddings.LayerNorm.bias has dtype I8, expected F32 or F16"),
        ("float16 scales", "embeddings.word_embeddings.scale has dtype F16, expected F32"),
    ])
    func int8WhereItCannotBeRead(damage: String, reason: String) throws {
        let directory = try damagedCopy { directory in
            try rewriteWeights(in: directory) { data in
                data = Self.int8Weights(from: data) { header in
                    switch damage {
                    case "no scales":
                        header["embeddings.word_embeddings.scale"] = nil
                    case "int8 layer norm":
                        var norm = header["embeddings.LayerNorm.bias"] as! [String: Any]
                        norm["dtype"] = "I8"
                        norm["shape"] = [1536]
                        header["embeddings.LayerNorm.bias"] = norm
                    default:
                        var scales = header["embeddings.word_embeddings.scale"] as! [String: Any]
                        scales["dtype"] = "F16"
                        scales["shape"] = [(scales["shape"] as! [Int])[0] * 2]
                        header["embeddings.word_embeddings.scale"] = scales
                    }
                }
            }
        }
        expectDamaged(directory, mentioning: reason)
    }

    /// A model file taken apart: its JSON header, the bytes before the word-embedding table
    /// (the float32 tensors), and where the table sits. The converter stores the table last (int8's
    /// scales after it).
    struct ModelBytes {
        static let table = "embeddings.word_embeddings.weight"
        static let scales = "embeddings.word_embeddings.scale"
        var header: [String: Any]
        let data: Data
        let dataStart: Int
        var tableInfo: [String: Any] { header[Self.table] as! [String: Any] }
        var tableStart: Int { (tableInfo["data_offsets"] as! [Int])[0] }
        var rows: Int { (tableInfo["shape"] as! [Int])[0] }
        var width: Int { (tableInfo["shape"] as! [Int])[1] }

        init(_ data: Data) {
            let headerLength = Int(
                UInt64(littleEndian: data.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
            self.data = data
            dataStart = 8 + headerLength
            header = try! JSONSerialization.jsonObject(with: data.subdata(in: 8..<dataStart)) as! [String: Any]
        }

        /// The table's values as stored (float16, or int8 times its row's scale), row by row.
        func tableValues() -> [Float] {
            let (count, width, isHalf) = (rows * self.width, self.width, tableInfo["dtype"] as? String == "F16")
            let scaleStart = isHalf ? 0 : ((header[Self.scales] as! [String: Any])["data_offsets"] as! [Int])[0]
            return data.withUnsafeBytes { raw in
                let base = raw.baseAddress! + dataStart
                let table = base + tableStart
                if isHalf {
                    return (0..<count).map { Float(table.loadUnaligned(fromByteOffset: $0 * 2, as: Float16.self)) }
                }
                return (0..<count).map {
                    Float(table.load(fromByteOffset: $0, as: Int8.self))
                        * base.loadUnaligned(fromByteOffset: scaleStart + ($0 / width) * 4, as: Float.self)
                }
            }
        }

        /// The file again with `tensors` (the table's bytes and what follows it) after the
        /// float32 tensors, its header padded so the tensors stay 64-byte aligned.
        func written(tensors: [Data]) -> Data {
            var headerBytes = try! JSONSerialization.data(withJSONObject: header)
            headerBytes.append(
                contentsOf: repeatElement(UInt8(ascii: " "), count: (64 - (8 + headerBytes.count) % 64) % 64))
            var result = withUnsafeBytes(of: UInt64(headerBytes.count).littleEndian) { Data($0) }
            result.append(headerBytes)
            result.append(data.subdata(in: dataStart..<(dataStart + tableStart)))
            for tensor in tensors { result.append(tensor) }
            return result
        }
    }

    /// `data` with its word-embedding table as `--layout int8` stores it: int8 with the float32
    /// scale of each row (its largest magnitude over 127) after it; `edit` changes the header
    /// before it is written.
    static func int8Weights(from data: Data, editing edit: (inout [String: Any]) -> Void = { _ in }) -> Data {
        var model = ModelBytes(data)
        let (rows, width, tableStart) = (model.rows, model.width, model.tableStart)
        var values = [Int8](repeating: 0, count: rows * width)
        var scales = [Float](repeating: 1, count: rows)
        let stored = model.tableValues()
        for row in 0..<rows {
            let rowValues = stored[(row * width)..<(row * width + width)].map { $0 }
            let largest = rowValues.reduce(Float(0)) { max($0, abs($1)) }
            if largest > 0 { scales[row] = largest / 127 }
            for column in 0..<width { values[row * width + column] = Int8((rowValues[column] / scales[row]).rounded()) }
        }
        let tableEnd = tableStart + rows * width
        var table = model.tableInfo
        table["dtype"] = "I8"
        table["data_offsets"] = [tableStart, tableEnd]
        model.header[ModelBytes.table] = table
        model.header[ModelBytes.scales] = [
            "dtype": "F32", "shape": [rows], "data_offsets": [tableEnd, tableEnd + rows * 4],
        ]
        edit(&model.header)
        return model.written(tensors: [values.withUnsafeBytes { Data($0) }, scales.withUnsafeBytes { Data($0) }])
    }

    /// `data` with its word-embedding table in float16, as `--layout mixed` stores it.
    static func float16Weights(from data: Data) -> Data {
        var model = ModelBytes(data)
        let count = model.rows * model.width
        let values = model.tableValues().map { Float16($0) }
        var table = model.tableInfo
        table["dtype"] = "F16"
        table["data_offsets"] = [model.tableStart, model.tableStart + count * 2]
        model.header[ModelBytes.table] = table
        model.header[ModelBytes.scales] = nil
        return model.written(tensors: [values.withUnsafeBytes { Data($0) }])
    }

    @Test func missingVocabulary() throws {
        let directory = try damagedCopy { try FileManager.default.removeItem(at: $0.appending(path: "vocab.txt")) }
        expectDamaged(directory, mentioning: "the file is missing")
    }

    @Test func shortVocabulary() throws {
        let directory = try damagedCopy { directory in
            let url = directory.appending(path: "vocab.txt")
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
            try FileManager.default.removeItem(at: url)
            try lines.dropLast(10).joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        expectDamaged(directory, mentioning: "30512 tokens")
    }

    @Test func configurationNotJSON() throws {
        let directory = try damagedCopy { directory in
            let url = directory.appending(path: "config.json")
            try FileManager.default.removeItem(at: url)
            try Data("{\"hidden_size\": ".utf8).write(to: url)
        }
        expectDamaged(directory, mentioning: "JSON")
    }

    @Test(arguments: [
        ("\"num_hidden_layers\": 6", "\"num_hidden_layers\": -6", "too small"),
        ("\"max_position_embeddings\": 512", "\"max_position_embeddings\": 1", "too small"),
        ("\"hidden_act\": \"gelu\"", "\"hidden_act\": \"relu\"", "expected gelu"),
        ("\"num_attention_heads\": 12", "\"num_attention_heads\": 7", "heads"),
        ("\"intermediate_size\": 1536", "\"intermediate_size\": 1024", "expected [1024]"),
    ])
    func foreignConfiguration(old: String, new: String, reason: String) throws {
        let directory = try damagedCopy { directory in
            let url = directory.appending(path: "config.json")
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.contains(old), "config.json has no \(old)")
            try FileManager.default.removeItem(at: url)
            try text.replacingOccurrences(of: old, with: new).write(to: url, atomically: true, encoding: .utf8)
        }
        expectDamaged(directory, mentioning: reason)
    }

    @Test func modelFromTheEnvironmentComesFirst() throws {
        let located = SentenceEncoder.locateModel(environment: { ["XKCD_SEARCH_MODEL": "/somewhere/else"][$0] })
        #expect(located?.path == "/somewhere/else")
    }

    /// `make model` puts the model at `.build/<triple>/share/xkcd-search/model`, which the test
    /// bundle in `.build/<triple>/debug` finds without any setting.
    @Test func modelBesideTheBuildIsFound() throws {
        let located = try #require(SentenceEncoder.locateModel(environment: { _ in nil }))
        #expect(located.path.hasSuffix("/share/xkcd-search/model"))
    }

    /// Weights of the right shapes, but NaN, infinite, zero, negated or scaled: the model would
    /// make NaN, zero or other vectors of every text. The int8 weights' scales are refused as
    /// they are read when they are not finite numbers above zero; scales of another conversion
    /// (doubled) by the check of the vector.
    @Test(arguments: [
        "nan bias", "infinite bias", "all zero", "negated", "nan scales", "zero scales", "doubled scales",
    ])
    func poisonedWeights(_ poison: String) throws {
        let directory = try damagedCopy { directory in
            try rewriteWeights(in: directory) { data in
                func overwrite(_ tensor: String, with value: (Float) -> Float) {
                    let range = tensorRange(tensor, in: data)
                    for offset in stride(from: range.lowerBound, to: range.upperBound, by: 4) {
                        let old = data.subdata(in: offset..<offset + 4).withUnsafeBytes { $0.load(as: Float.self) }
                        withUnsafeBytes(of: value(old)) { data.replaceSubrange(offset..<offset + 4, with: $0) }
                    }
                }
                switch poison {
                case "all zero":
                    let start = 8 + Int(data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
                    data.resetBytes(in: start..<data.count)
                case "negated":
                    // Finite, of unit length after pooling, but not the model's vectors.
                    for offset in tensorRange("encoder.layer.5.output.dense.weight", in: data) {
                        data[offset] = UInt8(bitPattern: 0 &- Int8(bitPattern: data[offset]))
                    }
                case "nan bias": overwrite("encoder.layer.0.attention.qkv.bias") { _ in .nan }
                case "infinite bias": overwrite("encoder.layer.0.attention.qkv.bias") { _ in .infinity }
                case "nan scales": overwrite("encoder.layer.2.intermediate.dense.weight_scale") { _ in .nan }
                case "zero scales": overwrite("encoder.layer.3.attention.qkv.input_scale") { _ in 0 }
                default: overwrite("encoder.layer.0.attention.qkv.weight_scale") { $0 * 2 }
                }
            }
        }
        expectDamaged(directory, mentioning: "weights are broken")
    }

    /// A model converted before the converter wrote its check still opens: it must make a unit
    /// vector of a fixed text.
    @Test func aModelWithoutItsCheckOpens() throws {
        let directory = try damagedCopy { directory in
            try rewriteWeights(in: directory) { data in
                replaceInHeader("\"check_tokens\"", "\"other_tokens\"", in: &data)
            }
        }
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        #expect(try SentenceEncoder(modelDirectory: directory).dimensions == 384)
    }

    /// A vocabulary of 200 MB on one line (a sparse file: no disk is used) is refused before it
    /// is read, rather than read whole into memory.
    @Test func hugeVocabulary() throws {
        let directory = try damagedCopy { directory in
            let url = directory.appending(path: "vocab.txt")
            try FileManager.default.removeItem(at: url)
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: 200 << 20)
            try handle.close()
        }
        expectDamaged(directory, mentioning: "larger than 4 MB")
    }

    /// The byte range of tensor `name` in the safetensors bytes `data`.
    private func tensorRange(_ name: String, in data: Data) -> Range<Int> {
        let length = Int(data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        let header = try! JSONSerialization.jsonObject(with: data[8..<8 + length]) as! [String: Any]
        let offsets = (header[name] as! [String: Any])["data_offsets"] as! [Int]
        return 8 + length + offsets[0]..<8 + length + offsets[1]
    }
}
