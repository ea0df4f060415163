import Foundation
import Testing
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A hostile model directory: a FIFO for one of its files, a vocabulary of 200 MB, weights of
/// NaN. Every command goes on by words alone with one line saying why, within bounded memory,
/// and no NaN vector is stored or compared.
@Suite("a hostile model directory")
struct HostileModelTests {
    /// A copy of the real model in `directory`, with `change` applied to the copy.
    static func modelCopy(in directory: URL, _ change: (URL) throws -> Void = { _ in }) throws -> URL {
        let real = try #require(
            ProcessInfo.processInfo.environment["XKCD_SEARCH_MODEL"].map(URL.init(fileURLWithPath:))
                ?? SemanticSearchCommandTests.developmentModel, "no model to copy: run `make model`")
        let copy = directory.appendingPathComponent("model")
        try FileManager.default.copyItem(at: real, to: copy)
        try change(copy)
        return copy
    }

    /// Rewrites `count` values from the start of row `row` of the model's tensor `name` (float32
    /// or float16) to `value`. An int8 tensor cannot hold NaN: the float32 scales its values are
    /// multiplied by are rewritten instead (the table's row's scale, or a dense layer's first
    /// `count` column scales).
    static func poison(_ model: URL, tensor name: String, row: Int = 0, count: Int, with value: Float) throws {
        let url = model.appendingPathComponent("model.safetensors")
        var data = try Data(contentsOf: url)
        let length = Int(data.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
        let header = try #require(try JSONSerialization.jsonObject(with: data[8..<8 + length]) as? [String: Any])
        let tensor = try #require(header[name] as? [String: Any])
        if tensor["dtype"] as? String == "I8", name.hasSuffix(".weight") {
            // The word-embedding table's scales are one a row; the dense layers' one a column.
            let prefix = String(name.dropLast("weight".count))
            return header[prefix + "scale"] != nil
                ? try poison(model, tensor: prefix + "scale", row: row, count: 1, with: value)
                : try poison(model, tensor: prefix + "weight_scale", row: 0, count: count, with: value)
        }
        let (offsets, shape) = try (#require(tensor["data_offsets"] as? [Int]), #require(tensor["shape"] as? [Int]))
        let half = tensor["dtype"] as? String == "F16"
        let size = half ? 2 : 4
        let start = 8 + length + offsets[0] + row * shape.dropFirst().reduce(1, *) * size
        for index in 0..<count {
            let bytes =
                half
                ? withUnsafeBytes(of: Float16(value).bitPattern.littleEndian) { Data($0) }
                : withUnsafeBytes(of: value.bitPattern.littleEndian) { Data($0) }
            data.replaceSubrange(start + index * size..<start + (index + 1) * size, with: bytes)
        }
        // Replaced, not written through: the copy may share its data with the real model.
        try FileManager.default.removeItem(at: url)
        try data.write(to: url)
    }

    /// Indexes the fixture corpus into a new index in `directory`, embedding with `model`.
    static func indexFixtures(
        in directory: URL, with model: URL
    ) async throws -> (cli: BinaryRunner, db: String, environment: [String: String], output: BinaryRunner.Output) {
        let environment = ["XKCD_SEARCH_MODEL": model.path]
        let cli = try BinaryRunner(sandbox: directory, embeds: true)
        let db = directory.appendingPathComponent("index.sqlite").path
        let output = try await cli.run(
            ["index", "--db", db, "--mirror", Fixtures.corpusURL.path], environment: environment)
        return (cli, db, environment, output)
    }

    /// A FIFO in place of a file of the model: before, opening it waited for a writer forever.
    @Test(arguments: ["model.safetensors", "vocab.txt", "config.json", "1_Pooling/config.json"])
    func aFIFOInTheModelNeverHangsACommand(_ file: String) async throws {
        try await withBrowseSandbox { sandbox in
            let model = try Self.modelCopy(in: sandbox.directory) { model in
                let path = model.appendingPathComponent(file).path
                try FileManager.default.removeItem(atPath: path)
                #expect(mkfifo(path, 0o600) == 0)
            }
            let environment = ["XKCD_SEARCH_MODEL": model.path]
            let description = SemanticSearchCommandTests.description
            for arguments in [["search", description], ["search", description, "--json"], ["stats"]] {
                let output = try await sandbox.cli.run(arguments + ["--db", sandbox.db], environment: environment)
                #expect(!output.timedOut, "\(arguments) hung on a FIFO as \(file)")
                #expect(output.status == 0, "\(output)")
                #expect((output.stdout + output.stderr).contains("not a regular file"), "\(arguments): \(output)")
            }
            let repl = try await sandbox.cli.run(
                ["repl", "--db", sandbox.db], environment: environment,
                stdin: Data("search \(description)\nquit\n".utf8))
            #expect(!repl.timedOut && repl.status == 0, "the REPL hung on a FIFO as \(file): \(repl)")
            #expect(repl.stdout.contains("#149"), "\(repl)")
        }
    }

    /// A vocabulary of 200 MB on one line (a sparse file: no disk is used) is refused unread:
    /// before, `stats` took 426 MB.
    @Test func aHugeVocabularyIsNotRead() async throws {
        try await withBrowseSandbox { sandbox in
            let model = try Self.modelCopy(in: sandbox.directory) { model in
                let url = model.appendingPathComponent("vocab.txt")
                try FileManager.default.removeItem(at: url)
                _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                let handle = try FileHandle(forWritingTo: url)
                try handle.truncate(atOffset: 200 << 20)
                try handle.close()
            }
            let output = try await sandbox.cli.run(
                ["stats", "--db", sandbox.db], environment: ["XKCD_SEARCH_MODEL": model.path],
                wrapper: ["/usr/bin/time", "-v"])
            #expect(output.status == 0, "\(output)")
            #expect(output.stdout.contains("by meaning:    off: "), "\(output)")
            #expect(output.stdout.contains("larger than 4 MB"), "\(output)")
            let peak = output.stderrLines.first { $0.contains("Maximum resident set size") }
                .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            let kilobytes = try #require(peak, "\(output.stderr)")
            #expect(kilobytes < 150 * 1024, "peak memory \(kilobytes / 1024) MB")
        }
    }

    /// Weights of NaN in a layer every text goes through: the model is refused when opened, so
    /// `stats` says search by meaning is off and why, and `index` stores no vector. Before,
    /// `stats` said "on" and `index` stored NaN for every comic.
    @Test func poisonedWeightsAreRefusedWhenOpened() async throws {
        try await withTemporaryDirectory { directory in
            let model = try Self.modelCopy(in: directory) { model in
                try Self.poison(model, tensor: "encoder.layer.0.attention.qkv.weight", count: 384, with: .nan)
            }
            let (cli, db, environment, index) = try await Self.indexFixtures(in: directory, with: model)
            #expect(index.status == 0, "\(index)")
            #expect(index.stderrLines.count == 1 && index.stderr.contains("weights are broken"), "\(index)")
            #expect(try sqliteLines(db, "SELECT count(*) FROM comicVector") == ["0"])
            let stats = try await cli.run(["stats", "--db", db], environment: environment)
            #expect(stats.stdout.contains("by meaning:    off: "), "\(stats)")
            #expect(stats.stdout.contains("weights are broken"), "\(stats)")
        }
    }

    /// NaN in the word-embedding row of one word only, which the check when the model is opened
    /// never reads: the comics whose text has the word are not embedded (and said so), a query
    /// with it is ranked by words with one line saying why, and nothing NaN is stored.
    @Test func nanForOneWordIsNeverStoredNorCompared() async throws {
        try await withTemporaryDirectory { directory in
            let model = try Self.modelCopy(in: directory) { model in
                let vocabulary = try String(contentsOf: model.appendingPathComponent("vocab.txt"), encoding: .utf8)
                let row = try #require(
                    vocabulary.split(separator: "\n", omittingEmptySubsequences: false).firstIndex(of: "sandwich"))
                try Self.poison(model, tensor: "embeddings.word_embeddings.weight", row: row, count: 384, with: .nan)
            }
            let (cli, db, environment, index) = try await Self.indexFixtures(in: directory, with: model)
            #expect(index.status == 0, "\(index)")
            #expect(index.stdout.contains("comics not embedded: the model made no usable vector of them"), "\(index)")
            let stored = try sqliteLines(db, "SELECT hex(vector) FROM comicVector")
            #expect(!stored.isEmpty && stored.allSatisfy { isUnitVector(floats(hex: $0)) })
            #expect(try sqliteLines(db, "SELECT count(*) FROM comicVector WHERE comicID = 149") == ["0"])

            let search = try await cli.run(
                [
                    "search",
                    "a guy asks his buddy to make him a sandwich and only obeys once he invokes superuser privileges",
                    "--db", db,
                ],
                environment: environment)
            #expect(search.status == 0, "\(search)")
            #expect(
                search.stderrLines.count == 1 && search.stderr.contains("made no usable vector of this query"),
                "\(search)")
        }
    }
}
