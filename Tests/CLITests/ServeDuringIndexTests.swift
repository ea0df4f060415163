import Foundation
import Testing
import _XKCDTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `serve` while `index` writes the same file: real processes, real HTTP on loopback.
@Suite("serve while index runs")
struct ServeDuringIndexTests {
    /// Starts `serve --port 0 --db db` and waits for the URL it prints.
    static func startServer(_ cli: BinaryRunner, db: String) async throws -> (BinaryRunner.Child, URL) {
        let child = try cli.launch(["serve", "--port", "0", "--db", db])
        try await waitUntil("serve printed its URL", stopIf: { !child.isRunning }, { child.stdoutSoFar.contains("\n") })
        let line = try #require(
            child.stdoutSoFar.split(separator: "\n").first.map(String.init), "serve ended: \(child.stderrSoFar)")
        return (child, try #require(URL(string: String(line.dropFirst("serving ".count)))))
    }

    static func get(_ base: URL, _ path: String) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: path, relativeTo: base)))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    static func isJSON(_ body: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) != nil
    }

    static func latest(_ base: URL) async throws -> Int? {
        let answer = try await get(base, "api/comics/latest")
        return (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["num"] as? Int
    }

    /// A first index run, held by the fixture server before its first comic: the API answers
    /// 503 `index-building` (not an empty result), `/healthz` 200; after the run, the comics.
    @Test func theFirstIndexRunIsAnswered503UntilItHasComics() async throws {
        try await withServedIndex(latest: 10) { served in
            served.server.holdAnswers()
            let index = try served.cli.launch(["index", "--db", served.db, "--timeout", "600"] + served.urls)
            try await waitUntil("the index run's first request", stopIf: { !index.isRunning }) {
                !served.server.requestLog.isEmpty
            }
            let (server, base) = try await Self.startServer(served.cli, db: served.db)
            for path in ["api/search?q=tables", "api/comics/latest", "api/stats"] {
                let answer = try await Self.get(base, path)
                #expect(answer.status == 503, "\(path): \(answer)")
                #expect(answer.body.contains(#""code":"index-building""#), "\(path): \(answer)")
            }
            #expect(try await Self.get(base, "healthz").status == 200)
            served.server.releaseAnswers()
            let indexed = await index.wait()
            #expect(indexed.status == 0, "\(indexed)")
            #expect(try await Self.latest(base) == 10, "the comics of the run are served")
            server.kill(SIGTERM)
            #expect(await server.wait().status == 0)
        }
    }

    /// Two servers on one file while `index` adds comics 6 to 10: both answer throughout (the
    /// run held part way by the fixture server), and both serve the new comics after it.
    @Test func twoServersOnOneFileSeeTheComicsAnIndexRunAdds() async throws {
        try await withServedIndex(latest: 5) { served in
            let first = try await served.cli.run(["index", "--db", served.db, "--timeout", "600"] + served.urls)
            #expect(first.status == 0, "\(first)")
            let servers = [
                try await Self.startServer(served.cli, db: served.db),
                try await Self.startServer(served.cli, db: served.db),
            ]
            for (_, base) in servers { #expect(try await Self.latest(base) == 5) }

            served.server.setLatest(10)
            let asked = served.server.requestLog.count
            served.server.holdAnswers(afterRequests: asked + 3)
            let index = try served.cli.launch(["index", "--db", served.db, "--timeout", "600"] + served.urls)
            try await waitUntil("the run held part way", stopIf: { !index.isRunning }) {
                served.server.requestLog.count > asked + 3
            }
            for (_, base) in servers {
                let answer = try await Self.get(base, "api/search?q=barrel")
                #expect(answer.status == 200 && Self.isJSON(answer.body), "\(answer)")
            }
            served.server.releaseAnswers()
            let indexed = await index.wait()
            #expect(indexed.status == 0, "\(indexed)")
            for (child, base) in servers {
                #expect(try await Self.latest(base) == 10)
                child.kill(SIGTERM)
                #expect(await child.wait().status == 0)
            }
        }
    }

    /// 200 requests at once, searches, comics and suggestions, while `index --rebuild` runs
    /// again and again on the same file: every answer is a 200 of well-formed JSON.
    @Test func twoHundredConcurrentRequestsDuringRebuilds() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory, embeds: true)
            let db = directory.appendingPathComponent("index.sqlite").path
            let index = ["index", "--db", db, "--mirror", Fixtures.corpusURL.path]
            let built = try await cli.run(index)
            #expect(built.status == 0, "\(built)")
            let (server, base) = try await Self.startServer(cli, db: db)
            let paths = [
                "api/search?q=bobby%20tables", "api/comics/327", "api/suggest?q=tab",
                "api/search?q=a%20mother%20names%20her%20son", "api/comics/327/related",
            ]

            let rebuild = try cli.launch(index + ["--rebuild"])
            var rebuilds = [rebuild]
            let answers = try await withThrowingTaskGroup(of: (String, Int, String).self) { group in
                for n in 0..<200 {
                    let path = paths[n % paths.count]
                    group.addTask {
                        let answer = try await Self.get(base, path)
                        return (path, answer.status, answer.body)
                    }
                }
                var answers: [(String, Int, String)] = []
                for try await answer in group {
                    answers.append(answer)
                    // Another rebuild as soon as one ends: one runs all along the requests.
                    if let last = rebuilds.last, !last.isRunning, answers.count < 200 {
                        rebuilds.append(try cli.launch(index + ["--rebuild"]))
                    }
                }
                return answers
            }
            #expect(answers.count == 200)
            for (path, status, body) in answers {
                #expect(status == 200 && Self.isJSON(body), "\(path): \(status) \(body.prefix(200))")
            }
            for child in rebuilds {
                let output = await child.wait()
                #expect(output.status == 0, "\(output)")
            }
            server.kill(SIGTERM)
            #expect(await server.wait().status == 0)
        }
    }
}
