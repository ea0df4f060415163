import Foundation
import Testing
import _XKCDTestSupport

/// Files that are not an xkcd-search index, given to every command with `--db`: each is refused
/// in one line with a non-zero exit and left byte for byte as it was.
@Suite("files that are not an index")
struct ForeignFileTests {
    /// What a `--db` file holds.
    enum Kind: String, CaseIterable, Sendable {
        case foreign, empty, randomBytes, truncatedIndex, corruptIndex

        /// Writes the file at `path`.
        func make(at path: String) async throws {
            switch self {
            case .foreign:
                let result = try await runTool([
                    "sqlite3", path,
                    "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users VALUES (1, 'ann')",
                ])
                #expect(result.status == 0, "\(result.output)")
            case .empty:
                try Data().write(to: URL(fileURLWithPath: path))
            case .randomBytes:
                var generator = UInt64(0x9E37_79B9_7F4A_7C15)
                let bytes = (0..<8192).map { _ -> UInt8 in
                    generator = generator &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return UInt8(truncatingIfNeeded: generator >> 33)
                }
                try Data(bytes).write(to: URL(fileURLWithPath: path))
            case .truncatedIndex:
                try await withTemporaryDirectory { directory in
                    let index = try Data(contentsOf: URL(fileURLWithPath: try await FixtureIndex.copy(into: directory)))
                    try index.prefix(index.count / 2).write(to: URL(fileURLWithPath: path))
                }
            case .corruptIndex:
                // Whole length, pages past the first overwritten: SQLite reads it and finds it corrupt.
                try await withTemporaryDirectory { directory in
                    var index = try Data(contentsOf: URL(fileURLWithPath: try await FixtureIndex.copy(into: directory)))
                    index.replaceSubrange(
                        4096..<min(index.count, 4096 * 64),
                        with: Data(repeating: 0xFF, count: min(index.count, 4096 * 64) - 4096))
                    try index.write(to: URL(fileURLWithPath: path))
                }
            }
        }

        /// Words the refusal must hold.
        var message: String {
            switch self {
            case .foreign: "another program's SQLite database"
            case .empty: "is empty"
            case .randomBytes: "not an SQLite database"
            case .truncatedIndex, .corruptIndex: "is damaged"
            }
        }
    }

    /// Every command but `index`, with arguments that would work on an index.
    static let commands: [[String]] = [
        ["search", "bobby", "tables"], ["search", "--json", "python"], ["stats"], ["show", "327"], ["next"], ["prev"],
        ["latest"], ["random"], ["link", "327"], ["explain", "327"], ["open", "327"], ["fav", "add", "327", "sql"],
        ["fav", "remove", "327"], ["fav", "tag", "327", "sql"], ["fav", "untag", "327", "sql"], ["fav", "list"],
        ["fav", "tags"], ["fav", "export"], ["fav", "import", "IMPORT"], ["repl"],
    ]

    /// Runs `body` with a runner, a file of `kind` and its bytes.
    func withFile(_ kind: Kind, _ body: (URL, BinaryRunner, String, Data) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let db = directory.appendingPathComponent("other.db").path
            try await kind.make(at: db)
            try await body(
                directory, try BinaryRunner(sandbox: directory), db, try Data(contentsOf: URL(fileURLWithPath: db)))
        }
    }

    /// Files named after `db` beside it (its -wal and -shm).
    func filesBeside(_ db: String) throws -> [String] {
        let name = (db as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: (db as NSString).deletingLastPathComponent)
            .filter { $0.hasPrefix(name + "-") }.sorted()
    }

    @Test(arguments: Kind.allCases)
    func everyCommandRefusesAndLeavesTheFile(_ kind: Kind) async throws {
        try await withFile(kind) { directory, cli, db, before in
            let export = try ReadOnlyIndexTests.writeImportFile(in: directory)
            for command in Self.commands {
                let arguments = command.map { $0 == "IMPORT" ? export : $0 } + ["--db", db]
                let result = try await cli.run(
                    arguments, environment: ["BROWSER": "/bin/true"], stdin: Data("latest\nfav add 1\n".utf8))
                #expect(result.status != 0, "\(command): \(result)")
                #expect(result.stderrLines.count == 1, "\(command): \(result)")
                #expect(result.stderr.contains(kind.message), "\(command): \(result)")
                #expect(
                    !result.stderr.contains("SQLite error") && !result.stderr.contains("Fatal"), "\(command): \(result)"
                )
                #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "\(command) changed the \(kind) file")
                #expect(try filesBeside(db) == [], "\(command) left them beside the \(kind) file")
            }
        }
    }

    /// `index` builds only in a new or empty file; another program's database, random bytes and
    /// a damaged index are left alone.
    @Test(arguments: Kind.allCases)
    func indexBuildsOnlyInAnEmptyFile(_ kind: Kind) async throws {
        try await withFile(kind) { _, cli, db, before in
            let result = try await cli.run(["index", "--db", db, "--mirror", Fixtures.corpusURL.path])
            if kind == .empty {
                #expect(result.status == 0, "\(result)")
                let search = try await cli.run(["search", "bobby", "tables", "--db", db])
                #expect(search.stdout.hasPrefix("#327"), "\(search)")
            } else {
                #expect(result.status != 0, "\(result)")
                #expect(result.stderrLines.count == 1, "\(result)")
                #expect(result.stderr.contains(kind.message), "\(result)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "index changed the \(kind) file")
                #expect(try filesBeside(db) == [], "index left them beside the \(kind) file")
            }
        }
    }

    /// A missing file is no index either: nothing is created where `--db` points.
    @Test func aMissingFileIsNotCreated() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("missing.db").path
            for command in Self.commands where command != ["fav", "import", "IMPORT"] {
                let result = try await cli.run(command + ["--db", db], stdin: Data("latest\n".utf8))
                #expect(result.status != 0, "\(command): \(result)")
                #expect(result.stderrLines.count == 1, "\(command): \(result)")
                #expect(result.stderr.contains("there is no index"), "\(command): \(result)")
                #expect(result.stderr.contains("build one with 'xkcd-search index'"), "\(command): \(result)")
                #expect(!FileManager.default.fileExists(atPath: db), "\(command) created \(db)")
            }
        }
    }
}
