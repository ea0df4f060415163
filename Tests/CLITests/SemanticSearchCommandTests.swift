import Foundation
import Testing
import _XKCDTestSupport

/// Search by meaning through the binary, with the real model the executables find (`make test`
/// runs `make model` first) and without it.
@Suite("search by meaning through the binary")
struct SemanticSearchCommandTests {
    static let description = "a guy asks his buddy to fix him lunch and only obeys once he invokes superuser privileges"

    /// Where `make model` puts the model for the binaries built here, beside the executable's
    /// directory, as the binary finds it.
    static var developmentModel: URL? {
        let model = try? BinaryRunner.locateExecutable().deletingLastPathComponent()
            .appendingPathComponent("../share/xkcd-search/model").standardizedFileURL
        return model.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }
    }

    @Test func aDescriptionFindsItsComicAndSaysHowEachMatched() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("search", Self.description, "--json", "--limit", "3")
            #expect(output.status == 0, "\(output)")
            #expect(output.stderr.isEmpty, "\(output)")
            let page = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            let results = try #require(page["results"] as? [[String: Any]])
            #expect(results.contains { $0["num"] as? Int == 149 }, "\(output.stdout)")
            let kinds = Set(results.compactMap { $0["match"] as? String })
            #expect(!kinds.isEmpty && kinds.isSubset(of: ["all-words", "some-words", "similar"]))
        }
    }

    @Test(arguments: ["/nonexistent/model", "damaged"])
    func withoutAUsableModelSearchIsByWordsWithOneLineSaid(model: String) async throws {
        try await withBrowseSandbox { sandbox in
            var directory = model
            if model == "damaged" {
                // A copy of the real model whose weights file is cut short.
                let real = try #require(
                    ProcessInfo.processInfo.environment["XKCD_SEARCH_MODEL"].map(URL.init(fileURLWithPath:))
                        ?? Self.developmentModel, "no model to copy: run `make model`")
                let damaged = sandbox.directory.appendingPathComponent("model")
                try FileManager.default.copyItem(at: real, to: damaged)
                let weights = try FileHandle(forWritingTo: damaged.appendingPathComponent("model.safetensors"))
                try weights.truncate(atOffset: 4096)
                try weights.close()
                directory = damaged.path
            }
            let output = try await sandbox.run(
                "search", Self.description, environment: ["XKCD_SEARCH_MODEL": directory])
            #expect(output.status == 0, "\(output)")
            #expect(!output.stdout.isEmpty, "\(output)")
            #expect(output.stderrLines.count == 1, "\(output)")
            #expect(output.stderr.contains("semantic search is off"), "\(output)")
            #expect(output.stderr.contains("searching by words only"), "\(output)")
            #expect(
                output.stderr.contains(model == "damaged" ? "is damaged" : "no sentence-embedding model"), "\(output)")
            // The library says what is wrong; the command line adds what to do at a terminal.
            #expect(
                output.stderr.contains(
                    model == "damaged"
                        ? "; run 'make model' again"
                        : "; set XKCD_SEARCH_MODEL to a model's directory, or run 'make model'"), "\(output)")

            // A short query, or one whose words settle it (an exact title), never asks the model,
            // so it says nothing.
            for query in ["bobby tables", "exploits of a mom"] {
                let settled = try await sandbox.run("search", query, environment: ["XKCD_SEARCH_MODEL": directory])
                #expect(settled.status == 0 && settled.stderr.isEmpty, "\(settled)")
                #expect(settled.stdoutLines.first?.hasPrefix("#327") == true, "\(settled)")
            }

            let stats = try await sandbox.run("stats", environment: ["XKCD_SEARCH_MODEL": directory])
            #expect(stats.stdout.contains("by meaning:    off: "), "\(stats)")
        }
    }

    /// oneDNN is opened on the first embedding, not at start (Sources/CDNNL): a search that never
    /// embeds does not load it, and without it a description search falls back to words.
    /// XKCD_SEARCH_DNNL points the loader at another file; LD_DEBUG=files has the dynamic loader
    /// name every library it loads.
    @Test func oneDNNIsLoadedOnlyToEmbedAndWithoutItSearchIsByWords() async throws {
        try await withBrowseSandbox { sandbox in
            func loadsOneDNN(_ output: BinaryRunner.Output) -> Bool { output.stderr.contains("file=libdnnl.so.2") }
            let short = try await sandbox.run("search", "bobby tables", environment: ["LD_DEBUG": "files"])
            #expect(short.status == 0 && short.stdout.hasPrefix("#327"), "\(short)")
            #expect(!loadsOneDNN(short), "a two-word search loaded oneDNN: \(short.stderr)")
            let described = try await sandbox.run("search", Self.description, environment: ["LD_DEBUG": "files"])
            #expect(described.status == 0 && loadsOneDNN(described), "\(described)")

            let missing = ["XKCD_SEARCH_DNNL": "/nonexistent/libdnnl.so.2"]
            let output = try await sandbox.run("search", Self.description, environment: missing)
            #expect(output.status == 0, "\(output)")
            #expect(!output.stdout.isEmpty, "\(output)")
            #expect(
                output.stderrLines == [
                    "semantic search is off: the sentence model needs oneDNN (Debian's libdnnl2, which `make deps` installs): "
                        + "libdnnl.so.2 could not be loaded; searching by words only"
                ], "\(output)")
            let stats = try await sandbox.run("stats", environment: missing)
            #expect(stats.stdout.contains("by meaning:    off: the sentence model needs oneDNN"), "\(stats)")
        }
    }

    @Test func statsSaysSearchByMeaningIsOn() async throws {
        try await withBrowseSandbox { sandbox in
            let stats = try await sandbox.json("stats", "--json")
            #expect(stats["semanticSearch"] as? Bool == true, "\(stats)")
            #expect(stats["embeddedComics"] as? Int == stats["comics"] as? Int)
            #expect((stats["semanticModel"] as? String)?.hasPrefix("all-MiniLM-L6-v2/") == true)
        }
    }

    @Test func indexingWithoutAModelKeepsTheWordsAndSaysSo() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory, embeds: true)
            let db = directory.appendingPathComponent("index.sqlite").path
            let output = try await cli.run(
                ["index", "--db", db, "--mirror", Fixtures.corpusURL.path],
                environment: ["XKCD_SEARCH_MODEL": "/nonexistent/model"])
            #expect(output.status == 0, "\(output)")
            #expect(output.stderrLines.count == 1 && output.stderr.contains("semantic search is off"), "\(output)")
            let search = try await cli.run(["search", "--db", db, "exploits of a mom"])
            #expect(search.stdoutLines.first?.hasPrefix("#327") == true, "\(search)")
        }
    }
}
