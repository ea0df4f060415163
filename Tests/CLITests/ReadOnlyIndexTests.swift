import Foundation
import Testing
import _XKCDTestSupport

/// An index that cannot be written: every reading command works, the commands that write say
/// the index is read-only.
///
/// The tests run as root, whom file modes do not stop, so read-only is made for real: a
/// directory bind-mounted read-only in a mount namespace of the command's own (`unshare -m`,
/// where even root gets EROFS), and a file of mode 0444 read by the unprivileged user `nobody`
/// (`setpriv`). Without those tools, or without the right to use them, the tests fail.
@Suite("read-only indexes")
struct ReadOnlyIndexTests {
    /// Reading commands, each expected to succeed with this in its output.
    static let readers: [(arguments: [String], expected: String)] = [
        (["search", "bobby", "tables"], "#327"), (["search", "--json", "python"], "\"num\""), (["stats"], "comics:"),
        (["show", "327"], "Exploits of a Mom"), (["next"], "#472"), (["prev"], "#327"), (["latest"], "#3282"),
        (["random"], "#"), (["link", "327"], "xkcd #327"), (["explain", "327"], "Explanation"),
        (["fav", "list"], "no favourites yet"), (["fav", "tags"], "no tags yet"), (["fav", "export"], "\"format\""),
        (["repl"], "Exploits of a Mom"),
    ]

    /// Commands that must write, each refused with this in its one line.
    static let writers: [[String]] = [
        ["fav", "add", "327"], ["fav", "import", "IMPORT"],
        ["index", "--mirror", Fixtures.corpusURL.path],
    ]

    /// Runs every command through `wrapper` against `db`, which must stay unchanged; `corpus`
    /// stands in for the fixture corpus (a copy that the command's user may read).
    func checkEveryCommand(
        cli: BinaryRunner, db: String, wrapper: [String], importFile: String, corpus: String = Fixtures.corpusURL.path
    ) async throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for (arguments, expected) in Self.readers {
            let result = try await cli.run(
                arguments + ["--db", db], stdin: Data("327\nfav list\n".utf8), wrapper: wrapper)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.stdout.contains(expected), "\(arguments): \(result)")
            #expect(result.stderr.isEmpty, "\(arguments): \(result)")
        }
        for arguments in Self.writers {
            let result = try await cli.run(
                arguments.map { $0 == "IMPORT" ? importFile : $0 == Fixtures.corpusURL.path ? corpus : $0 } + [
                    "--db", db,
                ],
                wrapper: wrapper)
            #expect(result.status != 0, "\(arguments): \(result)")
            #expect(result.stderrLines.count == 1, "\(arguments): \(result)")
            #expect(result.stderr.contains("the index is read-only"), "\(arguments): \(result)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    static func writeImportFile(in directory: URL) throws -> String {
        let file = directory.appendingPathComponent("favourites.json")
        try Data(
            #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 327, "tags": ["sql"]}]}"#.utf8
        )
        .write(to: file)
        return file.path
    }

    @Test func inAReadOnlyDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("media", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let db = try await FixtureIndex.copy(into: folder)
            // The copy is in WAL mode with no log beside it, as an index is after a run.
            #expect(!FileManager.default.fileExists(atPath: db + "-shm"))
            let cli = try BinaryRunner(sandbox: directory)
            let wrapper = [
                "unshare", "-m", "--", "sh", "-c", #"mount --bind -o ro "$1" "$1" && shift && exec "$@""#, "sh",
                folder.path,
            ]
            let probe = try await runTool(wrapper + ["touch", folder.appendingPathComponent("probe").path])
            #expect(
                probe.status != 0 && probe.output.contains("Read-only file system"),
                "the mount is not read-only: \(probe)")
            try await checkEveryCommand(
                cli: cli, db: db, wrapper: wrapper, importFile: try Self.writeImportFile(in: directory))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["index.sqlite"])
        }
    }

    @Test func aReadOnlyFileReadByAnotherUser() async throws {
        try await withTemporaryDirectory { directory in
            let db = try await FixtureIndex.copy(into: directory)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
            // The build may be where only its owner may read: the user runs a copy.
            let copy = try PublicCopy(
                of: try BinaryRunner.locateExecutable(),
                in: directory.appendingPathComponent("public", isDirectory: true))
            let cli = try BinaryRunner(sandbox: directory, executable: copy.executable)
            let wrapper = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            let probe = try await runTool(wrapper + ["touch", db])
            #expect(probe.status != 0, "the file is writable by the user: \(probe)")
            // The state directory is in the sandbox, which that user may write (0777).
            try await checkEveryCommand(
                cli: cli, db: db, wrapper: wrapper, importFile: try Self.writeImportFile(in: directory),
                corpus: copy.corpus.path)
        }
    }

    /// An index of an earlier version must be brought up to date once, which cannot happen on
    /// read-only media: the message says that, not that it can be searched.
    @Test func anOlderIndexOnReadOnlyMediaSaysItNeedsUpdating() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("media", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let db = try await FixtureIndex.copy(into: folder)
            // What the version before the comic vectors made: no such table, no such migration.
            let older = try await runTool([
                "sqlite3", db,
                "DROP TABLE comicVector; DROP TABLE imageHash; DROP TABLE linkedPassage; DROP TRIGGER comicInsertRaisesLinkedPassagesVersion; DROP TRIGGER comicDeleteRaisesLinkedPassagesVersion; DELETE FROM grdb_migrations WHERE identifier IN "
                    + "('v9-comic-vectors', 'v10-symbol-words', 'v11-image-hashes', 'v12-image-part-hashes', "
                    + "'v13-vectors-version', 'v14-spelling-first-and-third', 'v15-links-version', 'v16-linked-passages', 'v17-linked-passages-version', 'v18-written-situations');",
            ])
            #expect(older.status == 0, "\(older.output)")
            let before = try Data(contentsOf: URL(fileURLWithPath: db))
            let cli = try BinaryRunner(sandbox: directory)
            let wrapper = [
                "unshare", "-m", "--", "sh", "-c", #"mount --bind -o ro "$1" "$1" && shift && exec "$@""#, "sh",
                folder.path,
            ]
            let result = try await cli.run(["search", "bobby", "tables", "--db", db], wrapper: wrapper)
            #expect(result.status != 0, "\(result)")
            #expect(result.stderrLines.count == 1 && result.stderr.contains("made by an earlier version"), "\(result)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        }
    }

    /// Without a state directory to write, the comic shown last is kept for the process: the
    /// REPL still steps from it.
    @Test func theComicShownLastIsKeptInMemoryWithoutAStateDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let db = try await FixtureIndex.copy(into: directory)
            let cli = try BinaryRunner(sandbox: directory)
            let result = try await cli.run(
                ["repl", "--db", db], environment: ["XDG_STATE_HOME": "/proc/xkcd-search-state"],
                stdin: Data("327\nn\n".utf8))
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("#472"), "\(result)")
            let show = try await cli.run(
                ["show", "327", "--db", db], environment: ["XDG_STATE_HOME": "/proc/xkcd-search-state"])
            #expect(show.status == 0 && show.stderr.isEmpty, "\(show)")
        }
    }

    @Test func aDirectoryThatMayNotBeReadIsSaidSo() async throws {
        try await withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("private", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let db = try await FixtureIndex.copy(into: folder)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
            let copy = try PublicCopy(
                of: try BinaryRunner.locateExecutable(),
                in: directory.appendingPathComponent("public", isDirectory: true))
            let cli = try BinaryRunner(sandbox: directory, executable: copy.executable)
            let wrapper = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            for arguments in [
                ["search", "python"], ["show", "327"], ["fav", "add", "327"], ["index", "--mirror", copy.corpus.path],
            ] {
                let result = try await cli.run(arguments + ["--db", db], wrapper: wrapper)
                #expect(result.status != 0, "\(arguments): \(result)")
                #expect(result.stderrLines.count == 1, "\(arguments): \(result)")
                #expect(
                    result.stderr.contains("the directory \(folder.path) may not be read"), "\(arguments): \(result)")
                #expect(!result.stderr.contains("there is no index"), "\(arguments): \(result)")
            }
        }
    }
}
