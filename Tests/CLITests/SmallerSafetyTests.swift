import Foundation
import Testing
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 16's smaller items: the index-run lock, "being built", `fav import`'s messages and
/// tags, the REPL's `fav add`, Ctrl-C during `index` in the REPL, the too-long query.
@Suite("smaller safety items")
struct SmallerSafetyTests {
    @Test func aSecondIndexRunStopsAtOnce() async throws {
        try await withServedIndex { served in
            let (server, cli, db) = (served.server, served.cli, served.db)
            let urls = served.urls + ["--concurrency", "1", "--timeout", "600"]
            // The first run waits for its fourth answer while the second one starts.
            server.holdAnswers(afterRequests: 3)
            let first = try cli.launch(["index", "--db", db] + urls)
            try await waitUntil("the first run's fourth request", stopIf: { !first.isRunning }) {
                server.requestLog.count > 3
            }
            let second = try await cli.run(["index", "--db", db] + urls)
            #expect(first.isRunning, "the first run ended while the server held its answers")
            server.releaseAnswers()
            #expect(second.status != 0 && second.stderrLines.count == 1, "\(second)")
            #expect(second.stderr.contains("another 'xkcd-search index' is updating the index"), "\(second)")
            let finished = await first.wait()
            #expect(finished.status == 0, "\(finished)")
            #expect(
                server.requestLog.filter { $0 == FixtureServer.latestPath }.count == 1,
                "the second run asked for nothing")
        }
    }

    /// A reader of a file an index run has locked and not yet filled is told it is being built.
    @Test func anIndexBeingBuiltIsSaidSo() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let descriptor = open(db, O_RDONLY | O_CREAT, 0o644)
            #expect(descriptor >= 0)
            defer { close(descriptor) }
            // As `xkcd-search index` holds it while it runs (another open file, as another process).
            #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
            for arguments in [["search", "python"], ["stats"], ["show", "327"], ["fav", "list"]] {
                let result = try await cli.run(arguments + ["--db", db])
                #expect(result.status != 0 && result.stderrLines.count == 1, "\(arguments): \(result)")
                #expect(result.stderr.contains("is being built by 'xkcd-search index'"), "\(arguments): \(result)")
            }
            _ = flock(descriptor, LOCK_UN)
            let unlocked = try await cli.run(["stats", "--db", db])
            #expect(unlocked.stderr.contains("is empty"), "\(unlocked)")
        }
    }

    @Test(arguments: [
        (#"[{"num": 327, "tags": "sql"}]"#, "favourites[0].tags should be a list"),
        (#"[{"num": 3.5}]"#, "favourites[0].num should be a whole number, not 3.5"),
        (#"[{"num": 327}, {"num": 404}]"#, "favourites[1].num is 404, which xkcd skipped on purpose"),
        (#"[{"num": 327, "tags": {"a": 1}}]"#, "favourites[0].tags should be a list"),
    ])
    func importSaysWhatIsWrong(_ favourites: String, _ message: String) async throws {
        try await withBrowseSandbox { sandbox in
            let file = sandbox.directory.appendingPathComponent("favourites.json")
            try Data(#"{"format": "xkcd-search favourites", "version": 1, "favourites": \#(favourites)}"#.utf8).write(
                to: file)
            expectFailure(try await sandbox.run("fav", "import", file.path), message)
        }
    }

    /// Tags are lower-cased by Unicode's rules: İ becomes i and a combining dot, which is kept.
    @Test func tagsOfAnyScriptAreLowerCasedByUnicodeRules() async throws {
        try await withBrowseSandbox { sandbox in
            let added = try await sandbox.run("fav", "add", "327", "İstanbul", "ΣΟΦΙΑ", "Ärger")
            #expect(added.status == 0, "\(added)")
            let tags = try await sandbox.run("fav", "tags")
            #expect(
                tags.stdoutLines.map { $0.split(separator: " ").first.map(String.init) ?? "" }.sorted()
                    == ["i\u{307}stanbul", "σοφια", "ärger"].sorted(), "\(tags)")
            let listed = try await sandbox.run("fav", "list", "--tag", "İSTANBUL")
            #expect(listed.stdout.hasPrefix("#327 "), "\(listed)")
        }
    }

    @Test func theREPLsFavAddRefusesWhatIsNotAComic() async throws {
        try await withBrowseSandbox { sandbox in
            let result = try await sandbox.cli.run(
                ["repl", "--db", sandbox.db], stdin: Data("show 100\nfav add 3z7\nfav add 0\nfav list\n".utf8))
            #expect(result.status != 0, "\(result)")
            #expect(result.stderr.contains("'3z7' is not a comic number"), "\(result)")
            #expect(result.stderr.contains("#0 does not exist"), "\(result)")
            #expect(result.stdout.contains("no favourites yet"), "\(result)")
        }
    }

    @Test func aTooLongQueryIsMeasuredInOneUnit() async throws {
        try await withBrowseSandbox { sandbox in
            let query = String(repeating: "😀", count: 1025)
            expectFailure(
                try await sandbox.run("search", query), "the query is too long (4100 bytes; the limit is 4096 bytes)")
        }
    }

    /// Ctrl-C while the REPL runs `index`: the indexer stops and says so, then the prompt comes
    /// back, and nothing is drawn after it.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func ctrlCDuringIndexInTheREPL() async throws {
        try await withServedIndex { served in
            let (directory, cli, db) = (served.directory, served.cli, served.db)
            // Two answers, then none until the end: the run is still going when Ctrl-C comes.
            served.server.holdAnswers(afterRequests: 2)
            let base = try #require(served.server.baseURL)
            // An index of #1 alone, from a mirror of it: the run over the server has the rest to fetch.
            let mirror = directory.appendingPathComponent("mirror/xkcd/1", isDirectory: true)
            try FileManager.default.createDirectory(at: mirror, withIntermediateDirectories: true)
            let first = try Data(contentsOf: Fixtures.corpusURL.appendingPathComponent("xkcd/1/info.0.json"))
            try first.write(to: mirror.appendingPathComponent("info.0.json"))
            try first.write(to: mirror.deletingLastPathComponent().appendingPathComponent("info.0.json"))
            let seed = try await cli.run([
                "index", "--db", db, "--mirror", mirror.deletingLastPathComponent().deletingLastPathComponent().path,
            ])
            #expect(seed.status == 0, "\(seed)")
            let script = #"""
                import os, sys, time, pexpect
                binary, db, base, home = sys.argv[1:5]
                env = dict(os.environ, HOME=home, XDG_STATE_HOME=home + "/state", XDG_CACHE_HOME=home + "/cache2",
                           TERM="xterm", NO_COLOR="1", LANG="C.UTF-8")
                p = pexpect.spawn(binary, ["repl", "--db", db], env=env, encoding="utf-8", timeout=600, dimensions=(40, 120))
                p.expect_exact("xkcd> ")
                p.send("index --xkcd-url " + base + " --explain-url " + base + " --concurrency 1 --timeout 600\r")
                p.expect_exact("indexing")    # the progress bar: the indexer runs
                p.sendintr()
                p.expect_exact("interrupted: the index keeps its")
                p.expect_exact("xkcd> ")
                p.send("stats\r"); p.expect_exact("comics:")
                p.expect_exact("xkcd> ")
                after = p.before
                keys_are_read(p); p.sendeof(); p.expect(pexpect.EOF); p.close()
                print("between the prompts:", repr(after))
                print("exit", p.exitstatus)
                """#
            let result = try await REPLCommandTests.runPython(
                script, arguments: [cli.executable.path, db, base.absoluteString, directory.path])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.hasSuffix("exit 0\n"), "\(result.output)")
            #expect(!result.output.contains("indexing"), "the progress bar drew after the prompt: \(result.output)")
        }
    }
}
