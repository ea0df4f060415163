import Foundation
import Testing
import _XKCDTestSupport

/// One `--json` convention for every command (README.md, "JSON"): one line, every documented key
/// present, `null` for a missing value.
@Suite("one JSON convention across the commands")
struct JSONConventionTests {
    /// The document a command printed, after checking it is one line.
    static func oneLine(_ output: BinaryRunner.Output, sourceLocation: SourceLocation = #_sourceLocation) throws -> Any
    {
        #expect(output.status == 0, "\(output)", sourceLocation: sourceLocation)
        #expect(
            output.stdout.hasSuffix("\n") && output.stdout.dropLast().firstIndex(of: "\n") == nil,
            "not one line: \(output)", sourceLocation: sourceLocation)
        return try JSONSerialization.jsonObject(with: Data(output.stdout.utf8), options: [.fragmentsAllowed])
    }

    @Test func everyCommandPrintsOneLine() async throws {
        try await withBrowseSandbox { sandbox in
            #expect(try await sandbox.run("fav", "add", "327", "sql").status == 0)
            for command in [
                ["search", "bobby", "tables", "--json"], ["show", "327", "--json"],
                ["show", "327", "--explain", "--json"],
                ["latest", "--json"], ["random", "--json"], ["explain", "327", "--json"], ["related", "327", "--json"],
                ["stats", "--json"], ["fav", "list", "--json"], ["fav", "tags", "--json"], ["link", "327", "--json"],
                ["about", "--json"],
            ] {
                let output = try await sandbox.cli.run(command + ["--db", sandbox.db])
                _ = try Self.oneLine(output)
            }
        }
    }

    /// A value that is missing is `null` under its key, never a left-out key or an empty string.
    @Test func aMissingValueIsNull() async throws {
        try await withBrowseSandbox { sandbox in
            let related = try #require(
                try Self.oneLine(try await sandbox.run("related", "327", "--json")) as? [String: Any])
            let entries = try #require(related["related"] as? [[String: Any]])
            #expect(!entries.isEmpty && entries.allSatisfy { $0.keys.contains("similarity") }, "\(entries)")
            #expect(entries.contains { $0["similarity"] is NSNull }, "a linked comic has no similarity: \(entries)")

            // #3282 has no transcript on xkcd and no explain xkcd page in the fixtures.
            let bare = try #require(
                try Self.oneLine(try await sandbox.run("show", "3282", "--explain", "--json")) as? [String: Any])
            for key in ["transcript", "explanation", "trivia", "incomplete"] {
                #expect(bare[key] is NSNull, "\(key): \(bare)")
            }

            let link = try #require(try Self.oneLine(try await sandbox.run("link", "327", "--json")) as? [String: Any])
            #expect(link["line"] as? String == "xkcd #327: Exploits of a Mom https://xkcd.com/327/")
            #expect(link["num"] as? Int == 327 && link["url"] as? String == "https://xkcd.com/327/")

            let about = try #require(try Self.oneLine(try await sandbox.run("about", "--json")) as? [String: Any])
            #expect((about["sources"] as? [[String: Any]])?.count == 2, "\(about)")
        }
        // An index run without embedding says so with nulls; its seconds are rounded.
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let output = try await cli.run(["index", "--db", db, "--mirror", Fixtures.corpusURL.path, "--json"])
            let summary = try #require(try Self.oneLine(output) as? [String: Any])
            for key in ["embedded", "vectorsImported", "linkedPassagesEmbedded", "writtenSituationsEmbedded"] {
                #expect(summary[key] is NSNull, "\(key): \(output)")
            }
            let seconds = try #require(output.stdout.firstMatch(of: /"seconds":([0-9.]+)/)?.1)
            #expect((seconds.split(separator: ".").dropFirst().first?.count ?? 0) <= 2, "\(output)")
        }
    }
}
