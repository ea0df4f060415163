import Foundation
import Testing
import _XKCDTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `xkcd-search serve` as a person runs it: the real process, real HTTP on loopback.
@Suite("serve through the binary")
struct ServeCommandTests {
    /// Starts `serve --port 0` over the sandbox's index and waits for the URL it prints.
    static func startServer(_ sandbox: BrowseSandbox, _ extra: [String] = []) async throws -> (BinaryRunner.Child, URL)
    {
        let child = try sandbox.cli.launch(["serve", "--port", "0", "--db", sandbox.db] + extra)
        try await waitUntil("serve printed its URL", stopIf: { !child.isRunning }, { child.stdoutSoFar.contains("\n") })
        let line = try #require(
            child.stdoutSoFar.split(separator: "\n").first.map(String.init), "serve ended: \(child.stderrSoFar)")
        #expect(line.hasPrefix("serving http://127.0.0.1:"), "\(line)")
        return (child, try #require(URL(string: String(line.dropFirst("serving ".count)))))
    }

    static func get(_ url: URL) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: url)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func answersWhatTheCommandsPrintLogsEachRequestAndStopsOnSIGTERM() async throws {
        try await withBrowseSandbox { sandbox in
            let search = try await sandbox.run("search", "bobby", "tables", "--json")
            let show = try await sandbox.run("show", "327", "--json")
            let (child, base) = try await Self.startServer(sandbox)
            let searched = try await Self.get(
                try #require(URL(string: "api/search?q=bobby%20tables", relativeTo: base)))
            #expect(searched.status == 200)
            #expect(searched.body + "\n" == search.stdout)
            let shown = try await Self.get(try #require(URL(string: "api/comics/327", relativeTo: base)))
            #expect(shown.body + "\n" == show.stdout)
            let missing = try await Self.get(try #require(URL(string: "api/comics/99999", relativeTo: base)))
            #expect(missing.status == 404)
            #expect(!missing.body.contains(sandbox.directory.path))

            child.kill(SIGTERM)
            let output = await child.wait()
            #expect(output.status == 0 && output.signal == nil, "\(output)")
            #expect(output.stderr.contains("GET /api/search 200"), "\(output)")
            #expect(output.stderr.contains("GET /api/comics/99999 404"), "\(output)")
            // What people search for stays out of the log.
            #expect(!output.stderr.contains("bobby"), "\(output)")
        }
    }

    /// SIGTERM while searches are being answered: each answer the server began is finished and
    /// well-formed (a request it had not taken yet may be refused), and the process exits 0.
    @Test func sigtermDuringRequestsFinishesThemAndExitsZero() async throws {
        try await withBrowseSandbox { sandbox in
            let (child, base) = try await Self.startServer(sandbox)
            // A description: ranked by meaning, the encoder's work, the slowest answer there is.
            let url = try #require(
                URL(
                    string:
                        "api/search?q=the%20one%20where%20a%20mother%20names%20her%20son%20after%20a%20database%20attack",
                    relativeTo: base))
            let answers = try await withThrowingTaskGroup(of: (status: Int, body: String)?.self) { group in
                for _ in 0..<16 {
                    group.addTask { try? await Self.get(url) }
                }
                // Stopped once the first answer has been logged: the others are under way.
                try await waitUntil("the server logged its first answer", stopIf: { !child.isRunning }) {
                    child.stderrSoFar.contains("GET /api/search 200")
                }
                child.kill(SIGTERM)
                var answers: [(status: Int, body: String)] = []
                for try await answer in group { if let answer { answers.append(answer) } }
                return answers
            }
            let output = await child.wait()
            #expect(output.status == 0 && output.signal == nil, "\(output)")
            #expect(!answers.isEmpty)
            for answer in answers {
                #expect(answer.status == 200, "\(answer)")
                #expect(
                    (try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))) != nil,
                    "not whole JSON: \(answer.body)")
            }
            let logged = output.stderrLines.filter { $0.contains("GET /api/search 200") }.count
            #expect(
                logged == answers.count,
                "every answer begun was logged and received: \(logged) logged, \(answers.count) received")
        }
    }

    /// What a page of the server does: a favourite PUT through HTTP is what `fav list` shows,
    /// and `GET /api/favourites` answers what `fav list --json` prints.
    @Test func aFavouritePutOverHTTPIsListedByTheCommandLine() async throws {
        try await withBrowseSandbox { sandbox in
            let (child, base) = try await Self.startServer(sandbox)
            var request = URLRequest(url: try #require(URL(string: "api/favourites/327", relativeTo: base)))
            request.httpMethod = "PUT"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"tags": ["sql", "classic"]}"#.utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: data, as: UTF8.self))")

            let list = try await sandbox.run("fav", "list", "--json")
            #expect(
                list.stdout.contains(#""num":327"#) && list.stdout.contains(#""tags":["classic","sql"]"#), "\(list)")
            let served = try await Self.get(try #require(URL(string: "api/favourites", relativeTo: base)))
            #expect(served.body + "\n" == list.stdout)
            child.kill(SIGTERM)
            let output = await child.wait()
            #expect(output.stderr.contains("PUT /api/favourites/327 200"), "\(output)")
        }
    }

    @Test(arguments: [
        (["--port", "70000"], "Error: --port must be between 0 and 65535, not 70000"),
        (["--deadline", "0"], "Error: --deadline must be between 1 and 3600 seconds, not 0"),
        (["--identify-deadline", "0"], "Error: --identify-deadline must be between 1 and 3600 seconds, not 0"),
        (["--image-url", "notaurl"], "Error: --image-url must be an http or https URL, not 'notaurl'"),
    ])
    func badOptionsAreUsageErrorsBeforeTheServerStarts(arguments: [String], message: String) async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.cli.run(["serve"] + arguments + ["--db", sandbox.db])
            #expect(output.status == 2 && output.stdout.isEmpty, "\(output)")
            #expect(output.stderrLines.first == message, "\(output)")
        }
    }

    /// `--image-url` names where `/images/N` fetches an image the cache lacks.
    @Test func imagesComeFromTheImageURL() async throws {
        try await withBrowseSandbox { sandbox in
            let images = FixtureServer()
            let imageBase = try await images.start()
            let (child, base) = try await Self.startServer(sandbox, ["--image-url", imageBase.absoluteString])
            let (data, response) = try await URLSession.shared.data(
                from: try #require(URL(string: "images/327", relativeTo: base)))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(data == (try Fixtures.image("exploits_of_a_mom.png")))
            #expect(images.requestCount(forPath: FixtureServer.imagePath("exploits_of_a_mom.png")) == 1)
            await images.stop()
            child.kill(SIGTERM)
            #expect(await child.wait().status == 0)
        }
    }
}
