import Foundation
import Testing
import _XKCDTestSupport

/// Small things a new user met: options with values that mean nothing, messages that said less
/// (or other) than was true.
@Suite("rough edges")
struct RoughEdgeTests {
    @Test func aDatabasePathThatCannotHoldAnIndexIsAUsageError() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            for (path, message) in [
                ("", "Error: --db needs a path: an index file, or a directory to hold index.sqlite"),
                (
                    "/dev/null",
                    "Error: --db /dev/null is not a file or a directory: give an index file, or a directory to hold index.sqlite"
                ),
            ] {
                for command in [
                    ["search", "bobby"], ["show", "327"], ["stats"], ["index", "--mirror", Fixtures.corpusURL.path],
                ] {
                    let output = try await cli.run(command + ["--db", path])
                    #expect(output.status == 2 && output.stdout.isEmpty, "\(command) --db '\(path)': \(output)")
                    #expect(output.stderrLines.first == message, "\(command) --db '\(path)': \(output)")
                }
            }
        }
    }

    @Test func aTimeoutMustBeAPositiveNumberOfSeconds() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            for timeout in [
                ["--timeout", "-1"], ["--timeout=-1"], ["--timeout", "0"], ["--timeout", "nan"], ["--timeout=inf"],
            ] {
                let value = timeout.joined(separator: " ")
                let output = try await cli.run(["index", "--db", db, "--mirror", Fixtures.corpusURL.path] + timeout)
                #expect(
                    output.status == 2 && output.stderr.contains("--timeout must be a number of seconds above 0"),
                    "\(value): \(output)")
                #expect(!FileManager.default.fileExists(atPath: db), "\(value): nothing is indexed")
            }
        }
    }

    /// A first run that stored nothing (offline) leaves an empty index: a search says so.
    @Test func aSearchOfAnEmptyIndexSaysTheIndexIsEmpty() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            // Nothing listens on port 9 of the loopback: every request is refused.
            let offline = try await cli.run([
                "index", "--db", db, "--xkcd-url", "http://127.0.0.1:9", "--explain-url", "http://127.0.0.1:9/api.php",
                "--timeout", "5",
            ])
            #expect(offline.status != 0 && FileManager.default.fileExists(atPath: db), "\(offline)")
            let output = try await cli.run(["search", "bobby", "tables", "--db", db])
            #expect(output.status == 1 && output.stdout.isEmpty, "\(output)")
            #expect(output.stderrLines == ["Error: the index is empty; run 'xkcd-search index' first"], "\(output)")
        }
    }

    @Test func searching404SaysItDoesNotExistOnPurpose() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("search", "404")
            #expect(
                output.stdoutLines.first == "#404 does not exist: xkcd skipped it on purpose (HTTP 404 Not Found)",
                "\(output)")
        }
    }

    /// "No results for" only when the words as typed found nothing: a misspelling may find
    /// comics by its stem, which `--exact` shows.
    @Test func theSpellingNoticeSaysNoResultsOnlyWhenTrue() async throws {
        try await withBrowseSandbox { sandbox in
            let stemmed = try await sandbox.run("search", "dependancies")
            #expect(
                stemmed.stdoutLines.first
                    == "showing results for \u{201C}dependencies\u{201D} (--exact searches \u{201C}dependancies\u{201D} as typed)",
                "\(stemmed)")
            let exact = try await sandbox.json("search", "dependancies", "--exact", "--json")
            #expect((exact["total"] as? Int ?? 0) > 0, "\(exact)")
            let nothing = try await sandbox.run("search", "clases")
            #expect(
                nothing.stdoutLines.first
                    == "no results for \u{201C}clases\u{201D}; showing results for \u{201C}class\u{201D}", "\(nothing)")
            let none = try await sandbox.json("search", "clases", "--exact", "--json")
            #expect(none["total"] as? Int == 0, "\(none)")
        }
    }
}
