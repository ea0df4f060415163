import Foundation
import Testing
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A first `index` stopped part way (Ctrl-C, or killed): every comic it stored is found by
/// every kind of query, plain words included, and the next run finishes the index.
@Suite("an interrupted first index")
struct InterruptedIndexTests {
    /// When the indexer is stopped: once this many requests were answered and the next one is
    /// waiting, or (nil) once the first comics are in the index, while it has more to do.
    static let points: [(signal: Int32, afterRequests: Int?)] = [
        (SIGINT, 6), (SIGINT, nil), (SIGKILL, 6), (SIGKILL, 24), (SIGKILL, nil),
    ]
    /// Answered before the hold when the indexer is stopped after storing: more than the
    /// indexer's first batch of 64 numbers takes, with their explanations.
    static let answeredBeforeStoring = 200

    @Test(arguments: 0..<points.count)
    func whatWasStoredIsSearchable(_ point: Int) async throws {
        let (signal, afterRequests) = Self.points[point]
        try await withServedIndex { served in
            let (server, cli, db, urls) = (served.server, served.cli, served.db, served.urls)
            // The server answers so many requests, then holds the rest: the indexer cannot finish
            // before it is stopped, however fast or slow the machine is.
            server.holdAnswers(afterRequests: afterRequests ?? Self.answeredBeforeStoring)
            let child = try cli.launch(["index", "--db", db, "--concurrency", "2", "--timeout", "600"] + urls)
            if let afterRequests {
                try await waitUntil("request \(afterRequests + 1) of the indexer", stopIf: { !child.isRunning }) {
                    server.requestLog.count > afterRequests
                }
            } else {
                try await waitUntil(
                    "the first comics in the index", pollingEvery: .milliseconds(100), stopIf: { !child.isRunning }
                ) {
                    !storedComics(db).isEmpty
                }
            }
            let storedBefore = storedComics(db).count
            #expect(child.isRunning, "the indexer ended while the server held its answers")
            child.kill(signal)
            let stopped = await child.wait()
            server.releaseAnswers()
            if signal == SIGINT {
                #expect(stopped.status == 130 && stopped.signal == nil, "\(stopped)")
                #expect(stopped.stderrLines.count == 1, "\(stopped)")
                #expect(stopped.stderr.contains("interrupted: the index keeps its"), "\(stopped)")
                #expect(stopped.stderr.contains("'xkcd-search index' resumes"), "\(stopped)")
            } else {
                #expect(stopped.signal == SIGKILL, "\(stopped)")
            }

            let stored = storedComics(db)
            #expect(stored.count >= storedBefore, "a stop loses no stored comic")
            if signal == SIGINT {
                #expect(stopped.stderr.contains("keeps its \(stored.count) comics"), "\(stopped)")
            }
            // Killed once comics were stored: the point of the test is that they are searchable.
            if afterRequests == nil { #expect(!stored.isEmpty, "nothing was stored before the kill") }
            for (id, title) in stored.prefix(4) {
                // The title's words as plain words, one of them as a prefix, and as a phrase.
                let words = title.split(separator: " ").map(String.init)
                for query in [words, [words[0].prefix(3) + "*"], ["\"\(title)\""]] {
                    let search = try await cli.run(["search"] + query + ["--limit", "100", "--db", db])
                    #expect(search.stdout.contains("#\(id) "), "\(query) after \(signal) at \(point): \(search)")
                }
            }

            let next = try await cli.run(["index", "--db", db, "--concurrency", "16"] + urls)
            #expect(next.status == 0, "\(next)")
            #expect(storedComics(db).count == Fixtures.comicIDs.filter { $0 <= 1190 }.count)
            let search = try await cli.run(["search", "bobby", "tables", "--db", db])
            #expect(search.stdout.hasPrefix("#327 "), "\(search)")
        }
    }

    /// The comics in the index and their titles, read by the sqlite3 shell.
    private func storedComics(_ db: String) -> [(Int, String)] {
        guard FileManager.default.fileExists(atPath: db),
            let result = try? runToolWaiting([
                "sqlite3", "-readonly", db, "SELECT id || '|' || title FROM comic ORDER BY id",
            ]),
            result.status == 0
        else { return [] }
        return result.output.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "|", maxSplits: 1)
            guard parts.count == 2, let id = Int(parts[0]) else { return nil }
            return (id, String(parts[1]))
        }
    }
}

/// What a test of `index` over the fixture server works with.
struct ServedIndex {
    let directory: URL
    let server: FixtureServer
    let cli: BinaryRunner
    /// The index file, not created yet.
    let db: String
    /// `--xkcd-url` and `--explain-url`, both the server.
    let urls: [String]
}

/// Runs `body` with a fixture server answering up to #`latest`, a runner
/// and a path for the index, in a temporary directory; stops the server afterwards.
func withServedIndex(latest: Int = 1190, _ body: (ServedIndex) async throws -> Void) async throws {
    try await withTemporaryDirectory { directory in
        let server = FixtureServer(latest: latest)
        let base = try await server.start()
        let served = ServedIndex(
            directory: directory, server: server, cli: try BinaryRunner(sandbox: directory),
            db: directory.appendingPathComponent("index.sqlite").path,
            urls: ["--xkcd-url", base.absoluteString, "--explain-url", base.absoluteString])
        do {
            try await body(served)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
