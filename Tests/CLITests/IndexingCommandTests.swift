import Foundation
import Testing
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `xkcd-search index`, `search` and `stats` as a user runs them: the built binary, a real
/// fixture server on loopback, files in a temporary directory.
@Suite("index, search and stats through the binary")
struct IndexingCommandTests {
    /// The `stats --json` keys these tests rely on.
    struct Stats: Decodable {
        var comics: Int
        var explained: Int
        var latest: Int?
        var database: String
    }

    /// The `index --json` summary.
    struct Summary: Decodable {
        struct NewComic: Decodable {
            var num: Int
            var title: String
        }
        struct Failure: Decodable {
            var num: Int
            var what: String
            var reason: String
        }
        var latest: Int
        var comicsFetched: Int
        var explanationsFetched: Int
        var new: [NewComic]
        var failed: [Failure]
        var database: String
    }

    // MARK: Basics

    @Test func indexFromMirrorThenSearchAndStats() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path

            // The global options before the command reach the indexer as after it.
            let index = try await cli.run(
                ["--db", db, "--color", "never", "index", "--mirror", Fixtures.corpusURL.path, "--json", "--no-embed"])
            #expect(index.status == 0, "\(index)")
            let summary = try JSONDecoder().decode(Summary.self, from: Data(index.stdout.utf8))
            #expect(summary.latest == 3282)
            #expect(summary.new.map(\.num) == Fixtures.comicIDs)
            #expect(summary.new.first { $0.num == 259 }?.title == "Clichéd Exchanges")
            #expect(summary.failed.isEmpty)
            #expect(summary.database == db)
            #expect(index.stdout.contains("\"database\":\"\(db)\""), "paths are written as typed: \(index.stdout)")

            let search = try await cli.run(["search", "bobby", "tables", "--db", db])
            #expect(search.status == 0, "\(search)")
            #expect(comicNumbers(in: search).first == 327, "\(search)")

            let stats = try await cli.run(["stats", "--json", "--db", db])
            #expect(stats.status == 0, "\(stats)")
            let object = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
            for key in ["comics", "explained", "latest", "database"] {
                #expect(object?[key] != nil, "stats --json lacks \(key): \(stats.stdout)")
            }
            #expect(stats.stdout.contains("\"database\":\"\(db)\""), "paths are written as typed: \(stats.stdout)")
            let decoded = try JSONDecoder().decode(Stats.self, from: Data(stats.stdout.utf8))
            #expect(decoded.comics == Fixtures.comicIDs.count)
            #expect(decoded.latest == 3282)
            #expect(decoded.database == db)
        }
    }

    @Test(arguments: [
        ["--xkcd-url", "notaurl"],
        ["--explain-url", "ftp://example.com"],
        ["--mirror", "/nonexistent"],
        ["--concurrency", "0"],
    ])
    func indexRejectsBadOptions(_ options: [String]) async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let result = try await cli.run(["index", "--db", db] + options)
            #expect(result.status != 0, "\(result)")
            #expect(result.signal == nil, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            let errors = result.stderrLines.filter { $0.hasPrefix("Error:") }
            #expect(errors.count == 1, "\(result)")
            #expect(errors.first?.contains(options[0]) == true, "\(result)")
            #expect(!FileManager.default.fileExists(atPath: db), "a rejected run must not create the index")
        }
    }

    @Test func searchInAFileThatIsNotAnIndexFailsWithOneLine() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("junk.sqlite")
            var junk = Data("this is not a database, just junk bytes\n".utf8)
            junk.append(contentsOf: (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
            try junk.write(to: db)

            for arguments in [["search", "bobby", "--db", db.path], ["stats", "--db", db.path]] {
                let result = try await cli.run(arguments)
                #expect(result.status != 0, "\(result)")
                #expect(result.signal == nil, "\(result)")
                #expect(result.stderrLines.count == 1, "\(result)")
                #expect(result.stderr.contains(db.path), "\(result)")
                #expect(!result.stderr.contains("SQLite error"), "\(result)")
                #expect(!result.stderr.contains("Fatal error"), "\(result)")
            }
            #expect(try Data(contentsOf: db) == junk, "the junk file must be left as it was")
        }
    }

    @Test func searchWithoutAnIndexFailsWithOneLine() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("missing/index.sqlite").path
            let result = try await cli.run(["search", "bobby", "--db", db])
            #expect(result.status != 0, "\(result)")
            #expect(result.stderrLines.count == 1, "\(result)")
            #expect(result.stderr.contains(db), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: db), "search must not create an index")
            #expect(result.signal == nil, "\(result)")
            #expect(!result.stderr.contains("SQLite error"), "\(result)")
            #expect(!result.stderr.contains("Fatal error"), "\(result)")
        }
    }

    @Test func indexExitsWithThreeWhenComicsFailed() async throws {
        try await withTemporaryDirectory { directory in
            let server = FixtureServer(latest: 10)
            let base = try await server.start()
            server.setFault(.status(500), forPath: FixtureServer.comicPath(5))
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let urls = ["--xkcd-url", base.absoluteString, "--explain-url", base.absoluteString]

            let failed = try await cli.run(["index", "--db", db, "--json"] + urls)
            #expect(failed.status == 3, "\(failed)")
            let summary = try JSONDecoder().decode(Summary.self, from: Data(failed.stdout.utf8))
            #expect(summary.failed.map(\.num) == [5])
            #expect(summary.failed.first?.what == "comic")
            #expect(summary.failed.first?.reason.contains("HTTP 500") == true, "\(failed)")
            #expect(summary.new.map(\.num) == [1, 2, 3, 4, 6, 7, 8, 9, 10])

            // The text summary names the failure too.
            let text = try await cli.run(["index", "--db", db] + urls)
            #expect(text.status == 3, "\(text)")
            #expect(text.stdout.contains("#5 comic:"), "\(text)")

            server.clearFaults()
            let retried = try await cli.run(["index", "--db", db, "--json"] + urls)
            #expect(retried.status == 0, "\(retried)")
            let second = try JSONDecoder().decode(Summary.self, from: Data(retried.stdout.utf8))
            #expect(second.new.map(\.num) == [5])
            #expect(second.failed.isEmpty)
            await server.stop()
        }
    }

    @Test func rebuildFromTheCacheMakesNoRequests() async throws {
        try await withTemporaryDirectory { directory in
            let server = FixtureServer(latest: 472)
            let base = try await server.start()
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let urls = ["--xkcd-url", base.absoluteString, "--explain-url", base.absoluteString]

            let first = try await cli.run(["index", "--db", db, "--concurrency", "16"] + urls)
            #expect(first.status == 0, "\(first)")
            let before = try await cli.run(["search", "bobby", "tables", "--db", db])
            let requests = server.requestLog.count
            await server.stop()

            let rebuild = try await cli.run(["index", "--rebuild", "--db", db, "--json"])
            #expect(rebuild.status == 0, "\(rebuild)")
            #expect(server.requestLog.count == requests)
            let after = try await cli.run(["search", "bobby", "tables", "--db", db])
            #expect(after.stdout == before.stdout)
            #expect(comicNumbers(in: after).first == 327, "\(after)")
            let stats = try await cli.run(["stats", "--json", "--db", db])
            let decoded = try JSONDecoder().decode(Stats.self, from: Data(stats.stdout.utf8))
            #expect(decoded.comics == Fixtures.comicIDs.filter { $0 <= 472 }.count)
        }
    }

    // MARK: The indexer in the REPL

    @Test func indexInTheREPLRunsTheIndexerAndTheSessionGoesOn() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let first = try await cli.run(["index", "--db", db, "--mirror", Fixtures.corpusURL.path])
            #expect(first.status == 0, "\(first)")
            let script = """
                index --mirror \(Fixtures.corpusURL.path) --rebuild --json
                search bobby tables --limit 1
                index --concurrency 0
                stats

                """
            let result = try await cli.run(["repl", "--db", db], stdin: Data(script.utf8))
            #expect(result.status == 1, "one line failed: \(result)")
            let summary = try #require(result.stdoutLines.first { $0.hasPrefix("{") })
            let decoded = try JSONDecoder().decode(Summary.self, from: Data(summary.utf8))
            #expect(decoded.database == db, "the REPL's --db reached the indexer")
            #expect(decoded.comicsFetched == Fixtures.comicIDs.count, "\(summary)")
            #expect(result.stdout.contains("#327  Exploits of a Mom  (2007-10-10)"), "\(result)")
            #expect(result.stderrLines == ["line 3: error: --concurrency must be between 1 and 16"], "\(result)")
            #expect(result.stdout.contains("comics:        \(Fixtures.comicIDs.count)"), "the session went on")
        }
    }

    // MARK: Crash safety

    @Test func indexKilledMidRunLeavesASoundIndexAndTheNextRunFinishes() async throws {
        try await withTemporaryDirectory { directory in
            let server = FixtureServer(latest: 1190)
            let base = try await server.start()
            // Enough answers for the indexer's first batch of 64 numbers, then none until the
            // kill: it cannot finish first, however fast or slow the machine is.
            server.holdAnswers(afterRequests: 200)
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let urls = ["--xkcd-url", base.absoluteString, "--explain-url", base.absoluteString]

            let child = try cli.launch(["index", "--db", db, "--concurrency", "2", "--timeout", "600"] + urls)
            // Kill the indexer once a batch is committed, in the middle of the next ones.
            var comicsSeen = 0
            try await waitUntil(
                "the first batch in the index", pollingEvery: .milliseconds(100), stopIf: { !child.isRunning }
            ) {
                comicsSeen = try await comicCount(cli, db: db) ?? 0
                return comicsSeen > 0
            }
            #expect(child.isRunning, "the indexer ended while the server held its answers")
            child.kill(SIGKILL)
            let killed = await child.wait()
            server.releaseAnswers()
            #expect(killed.signal == SIGKILL, "\(killed)")
            #expect(comicsSeen > 0)

            try checkIntegrity(db)
            let partial = try #require(try await comicCount(cli, db: db))
            #expect(partial > 0 && partial < Fixtures.comicIDs.filter { $0 <= 1190 }.count)

            let second = try await cli.run(["index", "--db", db, "--json", "--concurrency", "16"] + urls)
            #expect(second.status == 0, "\(second)")
            try checkIntegrity(db)
            let stats = try await cli.run(["stats", "--json", "--db", db])
            let decoded = try JSONDecoder().decode(Stats.self, from: Data(stats.stdout.utf8))
            #expect(decoded.comics == Fixtures.comicIDs.filter { $0 <= 1190 }.count)
            #expect(decoded.latest == 1190)
            let search = try await cli.run(["search", "bobby", "tables", "--db", db])
            #expect(comicNumbers(in: search).first == 327, "\(search)")
            await server.stop()
        }
    }

    /// The comic numbers `search` printed (`#327 …`), in the order printed.
    private func comicNumbers(in output: BinaryRunner.Output) -> [Int] {
        output.stdoutLines.compactMap { line in
            guard let hash = line.firstIndex(of: "#") else { return nil }
            return Int(line[line.index(after: hash)...].prefix { $0.isNumber })
        }
    }

    /// `stats --json`'s comic count, or nil when stats could not run (the index is still being created).
    private func comicCount(_ cli: BinaryRunner, db: String) async throws -> Int? {
        guard FileManager.default.fileExists(atPath: db) else { return nil }
        let stats = try await cli.run(["stats", "--json", "--db", db])
        guard stats.status == 0 else { return nil }
        return try? JSONDecoder().decode(Stats.self, from: Data(stats.stdout.utf8)).comics
    }

    /// SQLite's and FTS5's integrity checks, through the `sqlite3` shell.
    private func checkIntegrity(_ db: String) throws {
        let result = try runToolWaiting([
            "sqlite3", db,
            """
            PRAGMA integrity_check;
            INSERT INTO comicSearch(comicSearch, rank) VALUES('integrity-check', 1);
            """,
        ])
        #expect(result.status == 0, "sqlite3: \(result.output)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "sqlite3: \(result.output)")
    }
}
