import Foundation
import Testing
import _XKCDTestSupport

/// Favourites and REPL sessions wait their turn while an index run writes, however long its
/// transaction: they are never refused as "busy".
@Suite("commands during an index run's write")
struct IndexRunWaitTests {
    /// What an index run holds while it writes: the index-run lock (`flock` on the file) and
    /// SQLite's write lock, in a transaction left open until told to commit. A real run's
    /// transactions take milliseconds on the fixtures; its longest, on every comic on a busy
    /// machine, took longer than the busy timeout.
    static let writer = #"""
        import fcntl, sqlite3, sys
        db = sys.argv[1]
        lock = open(db, "rb")
        fcntl.flock(lock, fcntl.LOCK_EX)
        connection = sqlite3.connect(db, isolation_level=None)
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT INTO setting(key, value) VALUES ('testWriter', 'x') ON CONFLICT(key) DO NOTHING")
        print("holding", flush=True)
        sys.stdin.readline()
        connection.execute("COMMIT")
        print("committed", flush=True)
        """#

    @Test func favouritesAndTheREPLWaitForTheWriteToEnd() async throws {
        try await withBrowseSandbox { sandbox in
            let output = sandbox.directory.appendingPathComponent("writer.out")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let writer = Process()
            writer.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            writer.arguments = ["python3", "-c", Self.writer, sandbox.db]
            let release = Pipe()
            writer.standardInput = release
            writer.standardOutput = try FileHandle(forWritingTo: output)
            try writer.run()
            defer { if writer.isRunning { writer.terminate() } }
            func writerSays(_ word: String) -> Bool {
                String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self).contains(word)
            }
            try await waitUntil("the stand-in writer to take the write lock", stopIf: { !writer.isRunning }) {
                writerSays("holding")
            }
            try #require(writerSays("holding"), "the writer never took the write lock")

            let fav = try sandbox.cli.launch(["fav", "add", "327", "waited", "--db", sandbox.db])
            let repl = try sandbox.cli.launch(
                ["repl", "--db", sandbox.db], stdin: Data("search bobby tables\nfav add 149\nfav list\n".utf8))
            // Each says it waits (or, unfixed, gives up as busy): an event, not a time.
            for child in [fav, repl] {
                try await waitUntil("\(child.arguments.first ?? "") to say it waits", stopIf: { !child.isRunning }) {
                    child.stderrSoFar.contains("waiting for")
                }
            }
            #expect(fav.isRunning && repl.isRunning, "a command ended while the index was being written")
            release.fileHandleForWriting.write(Data("\n".utf8))
            let added = await fav.wait()
            let session = await repl.wait()
            writer.waitUntilExit()
            #expect(writerSays("committed"))
            #expect(added.status == 0, "\(added)")
            #expect(added.stderrLines == ["waiting for 'xkcd-search index' to finish writing to the index"], "\(added)")
            #expect(!added.stderr.contains("busy"), "\(added)")
            #expect(session.status == 0, "\(session)")
            #expect(!session.stderr.contains("busy"), "\(session)")
            #expect(session.stdout.contains("#327  Exploits of a Mom"), "\(session)")
            let listed = try await sandbox.run("fav", "list")
            #expect(listed.stdoutLines.map { String($0.prefix(5)) }.sorted() == ["#149 ", "#327 "], "\(listed)")
        }
    }
}
