import Foundation
import Testing
import _XKCDTestSupport

/// What people type without reading the help: a number or words with no command, a link to a
/// comic, options before the command, a mistyped subcommand, help for a command that is none.
@Suite("commands as people type them")
struct ImpliedCommandTests {
    @Test func aNumberShowsTheComicAndWordsSearch() async throws {
        try await withBrowseSandbox { sandbox in
            for typed in ["327", "#327", "https://xkcd.com/327/"] {
                let shown = try await sandbox.run(typed)
                #expect(
                    shown.status == 0 && shown.stdoutLines.first == "#327  Exploits of a Mom  (2007-10-10)",
                    "\(typed): \(shown)")
                #expect(shown.stdout.contains("Title text"), "\(typed): \(shown)")
            }
            let searched = try await sandbox.run("bobby", "tables")
            #expect(
                searched.status == 0 && searched.stdoutLines.first == "#327  Exploits of a Mom  (2007-10-10)",
                "\(searched)")
            #expect(searched.stdout.contains(" result"), "\(searched)")
            // Options before the words are read as options.
            let json = try await sandbox.cli.run(["--db", sandbox.db, "--json", "bobby", "tables"])
            #expect(json.status == 0 && json.stdout.hasPrefix("{"), "\(json)")
        }
    }

    @Test func showTakesTheComicsAddressAndRefusesOtherTextAsAUsageError() async throws {
        try await withBrowseSandbox { sandbox in
            for address in [
                "https://xkcd.com/327/", "xkcd.com/327",
                "https://www.explainxkcd.com/wiki/index.php/327:_Exploits_of_a_Mom",
            ] {
                let shown = try await sandbox.run("show", address)
                #expect(
                    shown.status == 0 && shown.stdoutLines.first == "#327  Exploits of a Mom  (2007-10-10)",
                    "\(address): \(shown)")
            }
            for typed in ["abc", "0"] {
                let refused = try await sandbox.run("show", typed)
                #expect(refused.status == 2, "\(typed): \(refused)")
                #expect(refused.stdout.isEmpty && refused.stderrLines.count == 1, "\(typed): \(refused)")
            }
            // A number the index lacks is not a usage error.
            #expect(try await sandbox.run("show", "99999").status == 1)
        }
    }

    @Test func noPagerAndJSONAreTakenBeforeTheCommand() async throws {
        try await withBrowseSandbox { sandbox in
            let plain = try await sandbox.cli.run(["--no-pager", "show", "327", "--db", sandbox.db])
            #expect(plain.status == 0 && plain.stdoutLines.first == "#327  Exploits of a Mom  (2007-10-10)", "\(plain)")
            let json = try await sandbox.cli.run(["--json", "--db", sandbox.db, "show", "327"])
            #expect(json.status == 0, "\(json)")
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            #expect(object?["num"] as? Int == 327, "\(json)")
        }
    }

    @Test func aMistypedSubcommandGetsDidYouMean() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("fav", "ad", "327")
            #expect(output.status == 2 && output.stdout.isEmpty, "\(output)")
            #expect(output.stderrLines.first == "Error: unknown 'fav' command 'ad'; did you mean 'add'?", "\(output)")
            #expect(try await sandbox.run("fav", "list").status == 0)
        }
    }

    @Test func helpForACommandThatIsNoneIsAnError() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.cli.run(["help", "nonsense"])
            #expect(output.status == 2 && output.stdout.isEmpty, "\(output)")
            #expect(output.stderrLines.first == "Error: unknown command 'nonsense'", "\(output)")
            let near = try await sandbox.cli.run(["help", "serch"])
            #expect(
                near.status == 2 && near.stderrLines.first == "Error: unknown command 'serch'; did you mean 'search'?",
                "\(near)")
            for known in [["help", "search"], ["help", "fav", "add"], ["help"]] {
                let help = try await sandbox.cli.run(known)
                #expect(help.status == 0 && help.stdout.contains("USAGE:"), "\(known): \(help)")
            }
        }
    }

    /// `--oneline` is for fzf and scripts: a comic a line, its number, title and date between
    /// tabs, no snippet, no footer.
    @Test func onelinePrintsOneComicALine() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("search", "--oneline", "bobby", "tables", "--limit", "3")
            #expect(output.status == 0, "\(output)")
            #expect(output.stdoutLines.count == 3, "\(output)")
            #expect(output.stdoutLines.first == "327\tExploits of a Mom\t2007-10-10", "\(output)")
            #expect(
                output.stdoutLines.allSatisfy {
                    $0.wholeMatch(of: /[0-9]+\t[^\t]+\t[0-9]{4}-[0-9]{2}-[0-9]{2}/) != nil
                }, "\(output)")
            let none = try await sandbox.run("search", "--oneline", "zzzzqqqq")
            #expect(none.status == 1 && none.stdout.isEmpty, "\(none)")
        }
    }

    /// `search --help` prints the query syntax as written, each line whole in 80 columns, and
    /// says a tag is one word.
    @Test func searchHelpKeepsTheSyntaxLinesWhole() async throws {
        try await withTemporaryDirectory { directory in
            let output = try await BinaryRunner(sandbox: directory).run(
                ["search", "--help"], environment: ["COLUMNS": "80"])
            let lines = Set(output.stdoutLines)
            let syntax = [
                "  tag:physics           favourites carrying this tag (a tag is one word)",
                "  sort:date  sort:-date  sort:num  sort:-num  the order (default: relevance;",
                "Anything else is searched as words: c++  don't  AT&T  e-mail  foo:bar",
            ]
            for line in syntax { #expect(lines.contains(line), "no \(line) in \(output)") }
            #expect(!output.stdout.contains("tag:\"two words\""), "\(output)")
            #expect(output.stdoutLines.filter { !$0.hasPrefix("USAGE:") }.allSatisfy { $0.count <= 80 }, "\(output)")
        }
    }
}
