import Foundation
import Testing
import _XKCDTestSupport

/// `--color` and `-v`, which every command takes (issue 17).
@Suite("--color and -v on every command")
struct GlobalOptionTests {
    static let bold = "\u{1B}[1m"

    /// Every command that colours its text output, with the arguments that make it print some.
    static let colouringCommands: [[String]] = [
        ["search", "exploits", "of", "a", "mom"], ["show", "327"], ["explain", "327"], ["related", "327"],
        ["latest"], ["random"],
    ]

    @Test func colorAlwaysAndNeverHoldForEveryCommandThatColours() async throws {
        try await withBrowseSandbox { sandbox in
            for command in Self.colouringCommands {
                // Standard output is a pipe here: `auto` prints no colour, `always` does, NO_COLOR or not.
                let auto = try await sandbox.cli.run(command + ["--db", sandbox.db])
                let always = try await sandbox.cli.run(
                    ["--color", "always"] + command + ["--db", sandbox.db],
                    environment: ["NO_COLOR": "1"])
                let never = try await sandbox.cli.run(
                    command + ["--color=never", "--db", sandbox.db],
                    environment: ["NO_COLOR": ""])
                #expect(auto.status == 0 && !auto.stdout.contains("\u{1B}"), "\(command): \(auto)")
                #expect(always.status == 0 && always.stdout.contains(Self.bold), "\(command): \(always)")
                #expect(never.status == 0 && !never.stdout.contains("\u{1B}"), "\(command): \(never)")
            }
            let wrong = try await sandbox.cli.run(["show", "327", "--color", "sometimes", "--db", sandbox.db])
            #expect(wrong.status == 2 && wrong.stderr.contains("sometimes"), "\(wrong)")
        }
    }

    /// Each command with `-v` logs at least these, in this order; without it, nothing.
    static let logged: [(command: [String], lines: [String])] = [
        (
            ["search", "exploits", "of", "a", "mom"],
            ["opened the index", "query read as: exploits of a mom", "ranked by words:", "meaning:", "comics found"]
        ),
        (
            ["search", SemanticSearchCommandTests.description],
            ["opened the index", "ranked by words:", "meaning: \"", "embedded and ranked with the words in"]
        ),
        (["show", "327"], ["opened the index", "read #327 from the index", "#327 is now the comic shown last"]),
        (["explain", "327"], ["opened the index", "read #327 from the index", "#327 is now the comic shown last"]),
        (["next"], ["opened the index", "the comic shown last is #", "read #", "is now the comic shown last"]),
        (["related", "327"], ["opened the index", "linked comics", "near in meaning"]),
        (["link", "327"], ["opened the index", "#327 is now the comic shown last"]),
        (["fav", "add", "327", "sql"], ["opened the index", "#327 written as a favourite, tags now: sql"]),
        (["fav", "list"], ["opened the index", "favourites read: 1"]),
        (["stats"], ["opened the index", "read the counts"]),
        (["about"], ["index:", "sentence model:"]),
    ]

    @Test func verboseLogsWhatEachCommandOpensReadsAndHowLong() async throws {
        try await withBrowseSandbox { sandbox in
            for (command, lines) in Self.logged {
                let quiet = try await sandbox.cli.run(command + ["--db", sandbox.db])
                #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(command): \(quiet)")
                let verbose = try await sandbox.cli.run(["-v"] + command + ["--db", sandbox.db])
                #expect(verbose.status == 0, "\(command): \(verbose)")
                var rest = verbose.stderr[...]
                for line in lines {
                    guard let found = rest.range(of: line) else {
                        Issue.record("\(command): no \"\(line)\" in order in \(verbose.stderr)")
                        break
                    }
                    rest = rest[found.upperBound...]
                }
                #expect(verbose.stderrLines.allSatisfy { $0.contains(" info ") }, "\(command): \(verbose)")
                if command.first != "about" {
                    #expect(
                        verbose.stderr.range(of: #"in \d+\.\d\d ms"#, options: .regularExpression) != nil,
                        "\(command): \(verbose)")
                }
            }
        }
    }
}
