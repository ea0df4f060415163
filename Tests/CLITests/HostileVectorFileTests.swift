import Foundation
import Testing
import XKCDModel
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `index --vectors` with a hostile file, and vectors in the index that no model made: a file
/// that is no plain table of vectors is passed over with one line and every comic embedded; rows
/// that are no unit vectors of the model are left out and counted; memory stays bounded;
/// nothing absurd reaches search, `related` or its JSON; Ctrl-C stops the step.
@Suite("index --vectors with a hostile file")
struct HostileVectorFileTests {
    /// The fixture index without its vectors, those vectors in a file of their own
    /// (as scripts/export-vectors.sh writes it), and a runner whose `index` embeds.
    struct Setup {
        let directory: URL
        let db: String
        let vectors: String
        let cli: BinaryRunner
        /// The model's identity, as the vectors name it.
        let model: String
        let comics: Int

        func index(_ vectors: String, wrapper: [String] = []) async throws -> BinaryRunner.Output {
            try await cli.run(
                ["index", "--db", db, "--mirror", Fixtures.corpusURL.path, "--vectors", vectors, "--json"],
                wrapper: wrapper)
        }

        /// Runs SQL on the vectors file (or `file`) with the sqlite3 shell.
        func sql(_ statements: String, on file: String? = nil) async throws {
            let result = try await runTool(["sqlite3", file ?? vectors, statements])
            #expect(result.status == 0, "\(result.output)")
        }

        /// How many comics of the index have vectors, and how many of those are unit vectors.
        func storedVectors() throws -> (comics: Int, unit: Int) {
            let rows = try sqliteLines(db, "SELECT hex(vector) FROM comicVector")
            return (rows.count, rows.filter { isUnitVector(floats(hex: $0)) }.count)
        }
    }

    static func setUp(_ directory: URL) async throws -> Setup {
        let db = try await FixtureIndex.copy(into: directory)
        let vectors = directory.appendingPathComponent("vectors.sqlite").path
        let model = try #require(try sqliteLines(db, "SELECT DISTINCT model FROM comicVector").first)
        let comics = try #require(Int(try sqliteLines(db, "SELECT count(*) FROM comic").first ?? ""))
        let export = try await runTool([
            "sqlite3", db,
            """
            ATTACH DATABASE '\(vectors)' AS shipped;
            CREATE TABLE shipped.comicVector AS SELECT comicID, passage, model, textDigest, vector FROM comicVector ORDER BY comicID;
            DELETE FROM comicVector;
            """,
        ])
        #expect(export.status == 0, "\(export.output)")
        return Setup(
            directory: directory, db: db, vectors: vectors, cli: try BinaryRunner(sandbox: directory, embeds: true),
            model: model, comics: comics)
    }

    struct Summary: Decodable {
        var embedded: Int?
        var vectorsImported: Int?
        var vectorRowsRefused: Int?
    }

    /// Files that must not be read as vectors. Before, a view without end took memory until
    /// the process died, a slow view and a FIFO hung the run, and a file past the size bound
    /// was read whole.
    @Test(arguments: [
        "endless view", "slow view", "fifo", "oversized", "not sqlite", "generated column", "virtual table",
    ])
    func aFileThatIsNoPlainTableOfVectorsIsPassedOver(_ kind: String) async throws {
        try await withTemporaryDirectory { directory in
            let setup = try await Self.setUp(directory)
            let file = directory.appendingPathComponent("hostile.sqlite").path
            let reason: String
            // Rows of the view are made endlessly (or none ever come): 1536 zero bytes, a
            // vector's length, so that only their number could stop them.
            let numbers = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)"
            let columns =
                "i AS comicID, 0 AS passage, '\(setup.model)' AS model, 'digest' AS textDigest, zeroblob(1536) AS vector"
            switch kind {
            case "endless view":
                try await setup.sql("CREATE VIEW comicVector AS \(numbers) SELECT \(columns) FROM n;", on: file)
                reason = "not a plain table"
            case "slow view":
                try await setup.sql(
                    "CREATE VIEW comicVector AS \(numbers) SELECT \(columns) FROM n WHERE i < 0;", on: file)
                reason = "not a plain table"
            case "fifo":
                #expect(mkfifo(file, 0o600) == 0)
                reason = "not a regular file"
            case "oversized":
                // The real vectors, then past the bound as a sparse file: no disk is used.
                try FileManager.default.copyItem(atPath: setup.vectors, toPath: file)
                let handle = try #require(FileHandle(forWritingAtPath: file))
                try handle.truncate(atOffset: 65 << 20)
                try handle.close()
                reason = "larger than 64 MB"
            case "not sqlite":
                try Data("comicID,vector\n327,0.1 0.2\n".utf8).write(to: URL(fileURLWithPath: file))
                reason = "not an SQLite file"
            case "generated column":
                try await setup.sql(
                    """
                    CREATE TABLE comicVector(comicID, passage, model, textDigest, seed, vector AS (zeroblob(seed)));
                    INSERT INTO comicVector VALUES (327, 0, '\(setup.model)', 'digest', 1536);
                    """, on: file)
                reason = "generated columns"
            default:
                try await setup.sql(
                    "CREATE VIRTUAL TABLE comicVector USING fts5(comicID, passage, model, textDigest, vector);",
                    on: file)
                reason = "not a plain table"
            }
            // A run that reads rows without end dies at this limit instead of taking the machine.
            let output = try await setup.index(
                file, wrapper: ["/bin/sh", "-c", "ulimit -v 4000000 && exec \"$@\"", "sh"])
            #expect(output.status == 0, "\(output)")
            #expect(!output.timedOut, "the run hung on the \(kind)")
            #expect(output.stderrLines.count == 1, "\(output)")
            #expect(output.stderr.contains("--vectors not used: "), "\(output)")
            #expect(output.stderr.contains("is not a file of comic vectors ("), "\(output)")
            #expect(output.stderr.contains(reason), "\(output)")
            for wrong in ["cannot open the index", "disk I/O", "SQLite error"] {
                #expect(!output.stderr.contains(wrong), "\(output)")
            }
            let summary = try JSONDecoder().decode(Summary.self, from: Data(output.stdout.utf8))
            #expect(summary.embedded == setup.comics && summary.vectorsImported == 0, "\(output)")
            #expect(try setup.storedVectors() == (setup.comics, setup.comics))
        }
    }

    /// Blobs of a megabyte each, for the model's own identity, beside the real vectors of every
    /// comic: never loaded, so the run's peak memory is that of the same run without them
    /// (before, every row was read into memory, twice over: 57 MB without, 156 MB with them).
    /// Nothing is embedded, so the reading is the run's peak.
    @Test func largeBlobsAreNeverReadIntoMemory() async throws {
        try await withTemporaryDirectory { directory in
            let setup = try await Self.setUp(directory)
            let large = directory.appendingPathComponent("large.sqlite").path
            try FileManager.default.copyItem(atPath: setup.vectors, toPath: large)
            try await setup.sql(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 48)
                INSERT INTO comicVector SELECT 100000 + i, 0, '\(setup.model)', 'digest', zeroblob(1 << 20) FROM n;
                """, on: large)

            func peakKilobytes(_ output: BinaryRunner.Output) throws -> Int {
                let line = output.stderrLines.first { $0.contains("Maximum resident set size") }
                return try #require(
                    line.flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") },
                    "\(output)")
            }
            let baseline = try await setup.index(setup.vectors, wrapper: ["/usr/bin/time", "-v"])
            #expect(baseline.status == 0, "\(baseline)")
            try await setup.sql("DELETE FROM comicVector;", on: setup.db)
            let hostile = try await setup.index(large, wrapper: ["/usr/bin/time", "-v"])
            #expect(hostile.status == 0, "\(hostile)")
            let summary = try JSONDecoder().decode(Summary.self, from: Data(hostile.stdout.utf8))
            #expect(
                summary.vectorRowsRefused == 48 && summary.vectorsImported == setup.comics && summary.embedded == 0,
                "\(hostile)")
            let (base, peak) = (try peakKilobytes(baseline), try peakKilobytes(hostile))
            #expect(
                peak - base < 24 * 1024,
                "peak memory \(peak / 1024) MB against \(base / 1024) MB without the blobs; 48 MB of them")
        }
    }

    /// Rows that are no vector of the model (a duplicate, huge or NaN components, a vector
    /// scaled by 1e20, a number stored as text) are left out and counted; the rest are taken,
    /// and the comics left out are embedded by the model. Before, the duplicate stopped all
    /// embedding, and the absurd vectors were stored.
    @Test func badRowsAreLeftOutCountedAndTheirComicsEmbedded() async throws {
        try await withTemporaryDirectory { directory in
            let setup = try await Self.setUp(directory)
            let scaled = floats(
                hex: try #require(
                    try sqliteLines(setup.vectors, "SELECT hex(vector) FROM comicVector WHERE comicID = 1116").first)
            )
            .map { $0 * 1e20 }
            try await setup.sql(
                """
                UPDATE comicVector SET vector = \(blobLiteral(Array(repeating: 3e38, count: 384))) WHERE comicID = 327;
                UPDATE comicVector SET vector = \(blobLiteral(Array(repeating: .nan, count: 384))) WHERE comicID = 149;
                UPDATE comicVector SET vector = \(blobLiteral(scaled)) WHERE comicID = 1116;
                INSERT INTO comicVector SELECT * FROM comicVector WHERE comicID = 2347;
                INSERT INTO comicVector SELECT '1608', passage, model, textDigest, vector FROM comicVector WHERE comicID = 1608;
                """)
            let output = try await setup.index(setup.vectors)
            #expect(output.status == 0, "\(output)")
            #expect(output.stderr.isEmpty, "\(output)")
            let summary = try JSONDecoder().decode(Summary.self, from: Data(output.stdout.utf8))
            #expect(summary.vectorRowsRefused == 5, "\(output)")
            #expect(summary.embedded == 3 && summary.vectorsImported == setup.comics - 3, "\(output)")
            #expect(try setup.storedVectors() == (setup.comics, setup.comics))

            let text = try await setup.cli.run([
                "index", "--db", setup.db, "--mirror", Fixtures.corpusURL.path, "--vectors", setup.vectors,
            ])
            #expect(text.status == 0, "\(text)")
            #expect(!text.stdout.contains("rows of the vectors file left out"), "nothing was pending: \(text)")
        }
    }

    /// Vectors already in the index that no model made (stored by an earlier version): another
    /// comic's vector times 1e20, NaN, components of 3e38. `related` and search by meaning pass
    /// them over, JSON holds only numbers, and the next `index` embeds those comics again.
    @Test func absurdVectorsInTheIndexAreIgnoredAndEmbeddedAgain() async throws {
        try await withTemporaryDirectory { directory in
            let db = try await FixtureIndex.copy(into: directory)
            let cli = try BinaryRunner(sandbox: directory, embeds: true)
            let before = try await cli.run(["related", "2347", "--json", "--db", db])
            let search = ["search", "crimson stoplight that never budges", "--json", "--db", db]
            let searchBefore = try await cli.run(search)
            let scaled = floats(
                hex: try #require(try sqliteLines(db, "SELECT hex(vector) FROM comicVector WHERE comicID = 2347").first)
            )
            .map { $0 * 1e20 }
            let update = try await runTool([
                "sqlite3", db,
                """
                UPDATE comicVector SET vector = \(blobLiteral(scaled)) WHERE comicID = 10;
                UPDATE comicVector SET vector = \(blobLiteral(Array(repeating: .nan, count: 384))) WHERE comicID = 1;
                UPDATE comicVector SET vector = \(blobLiteral(Array(repeating: 3e38, count: 384))) WHERE comicID = 2;
                """,
            ])
            #expect(update.status == 0, "\(update.output)")

            for comic in ["2347", "10", "1", "2"] {
                let related = try await cli.run(["related", comic, "--json", "--db", db])
                #expect(related.status == 0 && related.stderr.isEmpty, "\(related)")
                #expect((try? JSONSerialization.jsonObject(with: Data(related.stdout.utf8))) != nil, "\(related)")
                #expect(!related.stdout.contains("inf") && !related.stdout.contains("nan"), "\(related)")
            }
            // The comics whose vectors were spoilt now count as without vectors and leave the
            // list (the int8 model's vectors put #10 fifth): the others keep their places.
            let after = try await cli.run(["related", "2347", "--json", "--db", db])
            let spoilt: Set = [1, 2, 10]
            let (relatedBefore, relatedAfter) = (
                relatedNumbers(before).filter { !spoilt.contains($0) }, relatedNumbers(after)
            )
            #expect(
                relatedBefore.count >= 3 && Array(relatedAfter.prefix(relatedBefore.count)) == relatedBefore,
                "an absurd vector changed the comics related to another: \(relatedBefore) then \(relatedAfter)")
            let searchAfter = try await cli.run(search)
            #expect(searchAfter.status == 0, "\(searchAfter)")
            // Comics 1, 2 and 10 now count as without vectors, so the tail of the results may
            // move; an absurd vector would have put its comic first.
            let (numbersBefore, numbersAfter) = (resultNumbers(searchBefore), resultNumbers(searchAfter))
            #expect(
                numbersBefore.count >= 3 && numbersAfter.prefix(3) == numbersBefore.prefix(3),
                "before \(numbersBefore), after \(numbersAfter)")

            let index = try await cli.run(["index", "--db", db, "--mirror", Fixtures.corpusURL.path, "--json"])
            #expect(index.status == 0, "\(index)")
            #expect(try JSONDecoder().decode(Summary.self, from: Data(index.stdout.utf8)).embedded == 3, "\(index)")
            let stored = try sqliteLines(db, "SELECT hex(vector) FROM comicVector WHERE comicID IN (1, 2, 10)")
            #expect(stored.count == 3 && stored.allSatisfy { isUnitVector(floats(hex: $0)) })
        }
    }

    /// Ctrl-C while the comics the file did not hold are embedded: the run stops, keeps what it
    /// stored (the vector taken from the file among it), and exits 130. Before, it went on to
    /// the end and exited 0.
    @Test func ctrlCStopsTheVectorStep() async throws {
        try await withTemporaryDirectory { directory in
            let setup = try await Self.setUp(directory)
            try await setup.sql("DELETE FROM comicVector WHERE comicID <> 327;")
            // The run waits at this FIFO, with the file's vector stored and nothing embedded, until
            // the test closes it: the Ctrl-C lands in the vector step however fast the machine is.
            let gate = directory.appendingPathComponent("embedding-gate").path
            #expect(mkfifo(gate, 0o600) == 0)
            let child = try setup.cli.launch(
                ["index", "--db", setup.db, "--mirror", Fixtures.corpusURL.path, "--vectors", setup.vectors],
                environment: ["XKCD_SEARCH_TEST_EMBEDDING_GATE": gate])
            // The vector taken from the file is stored before any comic is embedded.
            try await waitUntil("the imported vector in the index", stopIf: { !child.isRunning }) {
                (try? setup.storedVectors().comics) ?? 0 > 0
            }
            #expect(child.isRunning, "the run ended before it could be interrupted")
            child.kill(SIGINT)
            // Opening waits for the run to reach the gate; closing lets it go on, interrupted.
            _ = await offTheTaskPool { close(open(gate, O_WRONLY)) }
            let stopped = await child.wait()
            #expect(stopped.status == 130 && stopped.signal == nil, "\(stopped)")
            #expect(stopped.stderr.contains("interrupted: the index keeps its \(setup.comics) comics"), "\(stopped)")
            let kept = try setup.storedVectors()
            #expect(kept.comics >= 1 && kept.comics == kept.unit, "\(kept)")
            #expect(try sqliteLines(setup.db, "SELECT count(*) FROM comicVector WHERE comicID = 327") == ["1"])

            let next = try await setup.cli.run(["index", "--db", setup.db, "--mirror", Fixtures.corpusURL.path])
            #expect(next.status == 0, "\(next)")
            #expect(try setup.storedVectors() == (setup.comics, setup.comics))
        }
    }
}

/// The lines the sqlite3 shell prints for `sql` on `file`, read-only.
func sqliteLines(_ file: String, _ sql: String) throws -> [String] {
    let result = try runToolWaiting(["sqlite3", "-readonly", file, sql])
    guard result.status == 0 else { throw SQLiteShellFailed(output: result.output) }
    return result.output.split(separator: "\n").map(String.init)
}

struct SQLiteShellFailed: Error, CustomStringConvertible {
    var output: String
    var description: String { "sqlite3 failed: \(output)" }
}

/// The little-endian floats of a blob that sqlite3's hex() printed.
func floats(hex: String) -> [Float] {
    let digits = Array(hex.utf8)
    var bytes: [UInt8] = []
    for offset in stride(from: 0, to: digits.count - 1, by: 2) {
        bytes.append(UInt8(String(decoding: digits[offset..<offset + 2], as: UTF8.self), radix: 16) ?? 0)
    }
    return stride(from: 0, to: bytes.count - 3, by: 4).map { index -> Float in
        var word: UInt32 = 0
        for byte in bytes[index..<index + 4].reversed() { word = word << 8 | UInt32(byte) }
        return Float(bitPattern: word)
    }
}

/// An SQL blob literal of `values` as little-endian floats.
func blobLiteral(_ values: [Float]) -> String {
    "X'" + values.map { String(format: "%08X", $0.bitPattern.byteSwapped) }.joined() + "'"
}

func isUnitVector(_ vector: [Float]) -> Bool {
    vector.count == 384 && vector.allSatisfy(\.isFinite) && abs(vector.reduce(0) { $0 + $1 * $1 } - 1) < 1e-3
}

/// The comic numbers of a `search --json` page, in order.
/// The comics `related --json` lists, in order.
func relatedNumbers(_ output: BinaryRunner.Output) -> [Int] {
    let page = (try? JSONSerialization.jsonObject(with: Data(output.stdout.utf8))) as? [String: Any]
    return (page?["related"] as? [[String: Any]])?.compactMap { $0["num"] as? Int } ?? []
}

func resultNumbers(_ output: BinaryRunner.Output) -> [Int] {
    let page = (try? JSONSerialization.jsonObject(with: Data(output.stdout.utf8))) as? [String: Any]
    return (page?["results"] as? [[String: Any]])?.compactMap { $0["num"] as? Int } ?? []
}
