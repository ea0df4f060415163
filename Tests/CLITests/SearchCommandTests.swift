import Foundation
import Testing
import _XKCDTestSupport

@Suite("search through the binary")
struct SearchCommandTests {
    @Test func humanOutputHasAHeaderLineASnippetAndAFooter() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("search", "bobby", "tables", "--color", "never")
            #expect(output.status == 0, "\(output)")
            let lines = output.stdoutLines
            #expect(lines.first == "#327  Exploits of a Mom  (2007-10-10)")
            #expect(lines.count >= 3)
            #expect(lines[1].hasPrefix("    "))
            #expect(
                lines.last?.contains("of \(try #require(lines.last?.split(separator: " ").dropFirst(2).first)) result")
                    == true)
            #expect(!output.stdout.contains("\u{1B}"))
        }
    }

    @Test func colourFollowsTheFlagAndNOCOLOR() async throws {
        try await withBrowseSandbox { sandbox in
            let always = try await sandbox.run("search", "imagemagick", "--color", "always")
            #expect(always.stdout.contains("\u{1B}[1;33mImageMagick\u{1B}[0m"), "\(always)")
            // Piped output is plain unless asked, and NO_COLOR turns `auto` off.
            let auto = try await sandbox.run("search", "imagemagick", environment: ["NO_COLOR": "1"])
            #expect(!auto.stdout.contains("\u{1B}"))
            #expect(auto.stdout.contains("ImageMagick"))
        }
    }

    /// A mistyped command is named with the one it is near; words near none are searched
    /// (`xkcd-search bobby tables`).
    @Test func aMistypedCommandGetsDidYouMean() async throws {
        try await withBrowseSandbox { sandbox in
            for (typed, meant) in [("serch", "search"), ("shwo", "show"), ("relatd", "related"), ("STATS", "stats")] {
                let output = try await sandbox.run(typed, "foo")
                #expect(output.status != 0 && output.stdout.isEmpty, "\(output)")
                #expect(
                    output.stderrLines.first == "Error: unknown command '\(typed)'; did you mean '\(meant)'?",
                    "\(output)")
            }
            let far = try await sandbox.run("zzzzzz", "foo")
            #expect([0, 1].contains(far.status) && far.stderr.isEmpty, "\(far)")
        }
    }

    /// What ArgumentParser takes for an option is said as what was meant: a word to leave out,
    /// a page or size below 1.
    @Test func slipsAreExplained() async throws {
        try await withBrowseSandbox { sandbox in
            let exclusion = try await sandbox.run("search", "bobby", "-tables")
            #expect(exclusion.status != 0 && exclusion.stdout.isEmpty, "\(exclusion)")
            #expect(
                exclusion.stderrLines.first
                    == "Error: '-tables' is not an option: to leave a word out, put the query after --, as in 'xkcd-search search -- bobby -tables'",
                "\(exclusion)")
            for (option, value) in [("--page", "-1"), ("--limit", "-5")] {
                let output = try await sandbox.run("search", "bobby", option, value)
                #expect(output.stderrLines.first == "Error: \(option) must be 1 or more, not \(value)", "\(output)")
            }
            let after = try await sandbox.cli.run(["search", "--db", sandbox.db, "--", "bobby", "-tables"])
            #expect(
                [0, 1].contains(after.status) && after.stderr.isEmpty && !after.stdout.contains("#327 "), "\(after)")
        }
    }

    /// `--exact` searches the words as typed: a misspelling finds nothing rather than a correction.
    @Test func exactTurnsSpellingCorrectionOff() async throws {
        try await withBrowseSandbox { sandbox in
            let corrected = try await sandbox.json("search", "pasword", "strenght", "--json")
            #expect(corrected["corrected"] as? String == "password strength", "\(corrected)")
            let exact = try await sandbox.json("search", "pasword", "strenght", "--json", "--exact")
            #expect(exact["corrected"] is NSNull && exact["suggestion"] is NSNull, "\(exact)")
            #expect((exact["results"] as? [Any])?.isEmpty == true, "\(exact)")
        }
    }

    /// As grep and ripgrep: 0 with results, 1 when nothing is found, 2 for a usage error or a
    /// query that cannot be read.
    @Test func theExitStatusSaysWhatHappened() async throws {
        try await withBrowseSandbox { sandbox in
            #expect(try await sandbox.run("search", "bobby", "tables").status == 0)
            let nothing = try await sandbox.run("search", "zzqqxxnothing")
            #expect(
                nothing.status == 1 && nothing.stdout.contains("no comics found") && nothing.stderr.isEmpty,
                "\(nothing)")
            #expect(try await sandbox.run("search", "zzqqxxnothing", "--json").status == 1)
            for words in [[""], ["*"], ["()"], ["--", "-"], ["tag:"], ["bobby", "--no-such-option"], ["\"bobby"]] {
                let output = try await sandbox.cli.run(["search", "--db", sandbox.db] + words)
                #expect(output.status == 2 && output.stdout.isEmpty, "\(words): \(output)")
            }
            #expect(try await sandbox.run("serch", "bobby").status == 2)
        }
    }

    /// Every command's help shows how to use it.
    @Test func everyCommandsHelpHasExamples() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let commands = [
                "index", "search", "stats", "show", "explain", "next", "prev", "latest", "random", "link", "open",
                "related",
                "about", "repl", "fav", "fav add", "fav remove", "fav tag", "fav untag", "fav list", "fav tags",
                "fav export",
                "fav import",
            ]
            for command in commands {
                let help = try await cli.run(command.split(separator: " ").map(String.init) + ["--help"])
                #expect(help.status == 0 && help.stdout.contains("Examples:\n  xkcd-search "), "\(command): \(help)")
            }
        }
    }

    @Test func jsonHasTheDocumentedKeys() async throws {
        try await withBrowseSandbox { sandbox in
            let page = try await sandbox.json("search", "dependency", "--json", "--limit", "2")
            #expect(Set(page.keys).isSuperset(of: ["query", "total", "page", "corrected", "results"]))
            #expect(page["query"] as? String == "dependency")
            #expect(page["page"] as? Int == 1)
            #expect(page["corrected"] is NSNull)
            let results = try #require(page["results"] as? [[String: Any]])
            let first = try #require(results.first)
            #expect(Set(first.keys).isSuperset(of: ["num", "title", "date", "score", "snippet", "url"]))
            #expect(first["num"] as? Int == 2347)
            #expect(first["url"] as? String == "https://xkcd.com/2347/")
            #expect((first["snippet"] as? String)?.contains("\u{E000}") == false)
        }
    }

    @Test func aCorrectedQuerySaysSo() async throws {
        try await withBrowseSandbox { sandbox in
            let page = try await sandbox.json("search", "sandwhich", "--json")
            #expect(page["corrected"] as? String == "sandwich")
            let text = try await sandbox.run("search", "sandwhich")
            #expect(text.stdoutLines.first?.contains("showing results for") == true, "\(text)")
        }
    }

    @Test func pagingFooterPointsAtTheNextPage() async throws {
        try await withBrowseSandbox { sandbox in
            let first = try await sandbox.run("search", "the", "--limit", "2")
            // The same index and page size.
            #expect(first.stdoutLines.last?.contains("xkcd-search search the --db ") == true, "\(first)")
            #expect(first.stdoutLines.last?.hasSuffix(" --limit 2 --page 2") == true, "\(first)")
            // A word holding a control character: the command without it would be another
            // query, so only the option is shown.
            let control = try await sandbox.run("search", "the\u{7}", "--limit", "2")
            #expect(control.stdoutLines.last?.hasSuffix("next page: --page 2") == true, "\(control)")
            let second = try await sandbox.json("search", "the", "--limit", "2", "--page", "2", "--json")
            #expect(second["page"] as? Int == 2)
            #expect((second["results"] as? [Any])?.count == 2)
        }
    }

    @Test(arguments: [
        (["search", "\"unclosed"], "unclosed quote"),
        (["search", "num:9..3"], "reversed"),
        (["search", "date:2010-02-30"], "2010-02-30"),
        (["search", "bobby", "--limit", "0"], "--limit"),
    ])
    func malformedInputIsOneLineAndNonZero(_ arguments: [String], _ message: String) async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.cli.run(arguments + ["--db", sandbox.db])
            #expect(output.status != 0, "\(output)")
            #expect(output.stdout.isEmpty)
            let errors = output.stderrLines.filter { $0.hasPrefix("Error:") }
            #expect(errors.count == 1 && errors[0].contains(message), "\(output)")
            #expect(!output.stderr.contains("SQLite") && !output.stderr.contains("Fatal error"))
        }
    }

    @Test func partialMatchesAreMarkedWhereTheyRank() async throws {
        try await withBrowseSandbox { sandbox in
            // 1335 holds four of the five words and ranks first; 802 holds all five.
            let output = try await sandbox.run(
                "search", "centered", "there", "particular", "australian", "change", "--color", "never")
            let headers = output.stdoutLines.filter { $0.hasPrefix("#") }
            #expect(
                headers.first?.hasPrefix("#1335 ") == true && headers.first?.hasSuffix("[some of the words]") == true,
                "\(output)")
            let full = try #require(headers.first { $0.hasPrefix("#802 ") }, "\(output)")
            #expect(!full.contains("[some of the words]"))
        }
    }

    /// A search process exits without closing the index first, so everything it printed must
    /// still reach a pipe, and the next search must open the index as before.
    @Test func aLongPageReachesAPipeWhole() async throws {
        try await withBrowseSandbox { sandbox in
            let page = try await sandbox.json("search", "the", "--limit", "1000", "--json")
            let results = try #require(page["results"] as? [[String: Any]])
            #expect(results.count == page["total"] as? Int && results.count > 20, "\(page["total"] ?? "")")

            let text = try await sandbox.run("search", "the", "--limit", "1000", "--color", "never")
            #expect(text.status == 0)
            #expect(text.stdoutLines.filter { $0.hasPrefix("#") }.count == results.count)
            #expect(text.stdoutLines.last == "1-\(results.count) of \(results.count) results")
        }
    }

    /// `search` is parsed on its own first; whatever is not a search must still be answered by
    /// the whole command tree, so help, usage errors and completion scripts name the full command.
    @Test func helpErrorsAndCompletionsOfSearchNameTheWholeCommand() async throws {
        try await withBrowseSandbox { sandbox in
            let help = try await sandbox.cli.run(["search", "--help"])
            #expect(help.status == 0 && help.stdout.contains("USAGE: xkcd-search search "), "\(help)")

            for arguments in [
                ["search", "bobby", "--limit", "0"], ["search", "bobby", "--no-such-option"], ["search"],
            ] {
                let output = try await sandbox.cli.run(arguments + ["--db", sandbox.db])
                #expect(output.status != 0 && output.stdout.isEmpty, "\(output)")
                #expect(output.stderr.contains("Usage: xkcd-search search "), "\(arguments): \(output)")
            }

            let script = try await sandbox.cli.run(["search", "--generate-completion-script", "bash"])
            #expect(script.status == 0 && script.stdout.contains("_xkcd-search()"), "\(script)")
        }
    }

    /// A page past the last is nothing found: exit 1, as an empty search, in text and in JSON.
    @Test func aPagePastTheLastSaysItIsEmptyAndExits1() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("search", "the", "--page", "\(Int.max)", "--color", "never")
            #expect(output.status == 1, "\(output)")
            #expect(output.stdout.hasPrefix("no results on page \(Int.max): there are "), "\(output)")
            let one = try await sandbox.run("search", "bobby", "tables", "--limit", "1000", "--page", "2")
            #expect(one.status == 1 && one.stdout == "no results on page 2: there is 1 page\n", "\(one)")
            let json = try await sandbox.run("search", "bobby", "tables", "--limit", "1000", "--page", "2", "--json")
            #expect(json.status == 1 && json.stdout.contains("\"results\":[]"), "\(json)")
        }
    }

    @Test func controlCharactersFromTheQueryNeverReachTheTerminal() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("search", "bobby\u{1B}[31m\u{07}", "--color", "never")
            #expect(output.status == 0, "\(output)")
            #expect(!output.stdout.contains("\u{1B}") && !output.stdout.contains("\u{07}"))
        }
    }

    /// #1137 "RTL" holds U+202E and U+202D in its title, transcript and explanation: printed
    /// as they are, they would turn the rest of the terminal's line around.
    @Test func bidiOverridesFromTheIndexNeverReachTheTerminal() async throws {
        try await withBrowseSandbox { sandbox in
            let overrides: [Character] = [
                "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2069}",
            ]
            for arguments in [["search", "cueball", "asshole", "--color", "always"], ["show", "1137", "--explain"]] {
                let output = try await sandbox.cli.run(arguments + ["--db", sandbox.db])
                #expect(output.status == 0, "\(output)")
                #expect(output.stdout.contains("1137"), "\(output)")
                #expect(!output.stdout.contains(where: overrides.contains), "\(arguments): \(output)")
            }
        }
    }
}
