import Foundation
import Testing
import XKCDKit
import XKCDStore

@testable import XKCDREPL

@Suite("argument tokenizer")
struct ArgumentTokenizerTests {
    @Test(arguments: [
        ("fav add 327 sql", ["fav", "add", "327", "sql"]),
        ("  search   bobby\ttables  ", ["search", "bobby", "tables"]),
        (#"fav add 327 "two words" 'single quoted'"#, ["fav", "add", "327", "two words", "single quoted"]),
        (#"say it\'s "a \"b\" c" '\n'"#, ["say", "it's", #"a "b" c"#, #"\n"#]),
        ("search '' x", ["search", "", "x"]),
        (#"a"b"'c'd"#, ["abcd"]),
        ("", []),
        ("search 😀 ünïcödé", ["search", "😀", "ünïcödé"]),
    ])
    func splitsLikeAShell(line: String, expected: [String]) throws {
        #expect(try ArgumentTokenizer.split(line) == expected)
    }

    @Test func anUnquotedTildeStandsForTheHomeDirectory() throws {
        #expect(
            try ArgumentTokenizer.split("fav import ~/x.json ~ a~/b '~/q' \\~/e ~user", home: "/h") == [
                "fav", "import", "/h/x.json", "/h", "a~/b", "~/q", "~/e", "~user",
            ])
        #expect(
            try ArgumentTokenizer.split("stats --db=~/i.sqlite --x=~", home: "/h") == [
                "stats", "--db=/h/i.sqlite", "--x=/h",
            ])
        #expect(try ArgumentTokenizer.split("fav import ~/x", home: nil) == ["fav", "import", "~/x"])
    }

    @Test func anUnclosedQuoteIsAnError() {
        #expect(throws: REPLError.unclosedQuote("\"")) { try ArgumentTokenizer.split(#"search "bobby"#) }
        #expect(throws: REPLError.unclosedQuote("'")) { try ArgumentTokenizer.split("search 'bobby") }
        #expect(REPLError.unclosedQuote("'").description == "unclosed ' quote")
    }
}

@Suite("completion")
struct CompleterTests {
    @Test func completesCommandsSubcommandsAndOptions() async throws {
        let completer = Completer(root: RecordingHost.root, library: try await FixtureIndex.make().library)
        #expect(completer.completions(for: "sta", cursor: 3) == ["stats"])
        #expect(completer.completions(for: "se", cursor: 2) == ["search"])
        #expect(completer.completions(for: ":q", cursor: 2) == [":quit"])
        #expect(completer.completions(for: "fav ta", cursor: 6) == ["tag", "tags"])
        #expect(completer.completions(for: "fav r", cursor: 5) == ["remove", "rm"])
        #expect(completer.completions(for: "search bobby --li", cursor: 17) == ["--limit"])
        #expect(completer.completions(for: "show 327 --", cursor: 11) == ["--explain", "--json"])
        // Only the word before the cursor counts.
        #expect(completer.completions(for: "sta and more", cursor: 3) == ["stats"])
    }

    @Test func completesFieldAndFilterNames() async throws {
        let completer = Completer(root: RecordingHost.root, library: try await FixtureIndex.make().library)
        #expect(completer.completions(for: "search tit", cursor: 10).first == "title:")
        #expect(completer.completions(for: "search ye", cursor: 9).first == "year:")
        #expect(completer.completions(for: "bobby -tit", cursor: 10).first == "-title:")
        #expect(completer.completions(for: "search is:", cursor: 10) == ["is:fav"])
        #expect(completer.completions(for: "search sort:-", cursor: 13) == ["sort:-date", "sort:-num"])
    }

    @Test func completesTagNames() async throws {
        let index = try await FixtureIndex.make()
        let library = index.library
        _ = try library.addFavourite(.number(327), tags: ["sql", "security"])
        _ = try library.addFavourite(.number(149), tags: ["sudo"])
        let completer = Completer(root: RecordingHost.root, library: library)
        #expect(completer.completions(for: "search tag:s", cursor: 12) == ["tag:security", "tag:sql", "tag:sudo"])
        #expect(completer.completions(for: "bobby tag:sq", cursor: 12) == ["tag:sql"])
        #expect(completer.completions(for: "fav tag 327 su", cursor: 14) == ["sudo"])
        #expect(completer.completions(for: "fav untag 327 ", cursor: 14) == ["security", "sql", "sudo"])
        #expect(completer.completions(for: "tag s", cursor: 5) == ["security", "sql", "sudo"])
        #expect(completer.completions(for: "fav list --tag sq", cursor: 17) == ["sql"])
    }

    @Test func completesIndexedWordsMostFrequentFirst() async throws {
        let index = try await FixtureIndex.make()
        let library = index.library
        let completer = Completer(root: RecordingHost.root, library: library)
        let words = completer.completions(for: "search tabl", cursor: 11)
        #expect(words == (try library.commonWords(startingWith: "tabl", limit: 30)))
        #expect(words.contains("table"))
        #expect(words.allSatisfy { $0.hasPrefix("tabl") })
        // A first word that starts no command is a query word.
        #expect(completer.completions(for: "bobb", cursor: 4).contains("bobby"))
        #expect(completer.completions(for: "title:bobb", cursor: 10).contains("title:bobby"))
        #expect(completer.completions(for: "search zzzzq", cursor: 12).isEmpty)
    }

    @Test func countsTheCursorInUnicodeScalars() async throws {
        let completer = Completer(root: RecordingHost.root, library: try await FixtureIndex.make().library)
        #expect(completer.completions(for: "😀 ye", cursor: 4).first == "year:")
        #expect(completer.completions(for: "search ünï 😀 ye", cursor: 16).first == "year:")
    }
}

@Suite("completion of values and file names")
struct ValueCompletionTests {
    /// A tree as the command line's parser describes it, with options that take values.
    static let root = CommandSpec(
        name: "xkcd-search",
        subcommands: [
            CommandSpec(
                name: "search", options: ["--color", "--db", "--limit", "--help"],
                optionValues: [
                    "--color": .values(["auto", "always", "never"]), "--db": .files(extensions: []), "--limit": .none,
                ]),
            CommandSpec(
                name: "show", options: ["--image", "--image-format", "--help"],
                optionValues: [
                    "--image": .values(["auto", "always", "never"]),
                    "--image-format": .values(["auto", "kitty", "sixel", "symbols"]),
                ],
                arguments: [.none]),
            CommandSpec(
                name: "fav",
                subcommands: [
                    CommandSpec(
                        name: "import", options: ["--db", "--help"], optionValues: ["--db": .files(extensions: [])],
                        arguments: [.files(extensions: ["json"])]),
                    CommandSpec(name: "dump", arguments: [.directories]),
                ]),
        ])

    /// A tree of names in memory: `/home/me` holds `a b.json`, `docs/`, `.hidden`, `notes.txt`.
    static let fileNames = FileNames(
        list: { path in
            let tree: [String: [FileNames.Entry]] = [
                "/home/me/": [
                    .init(name: "a b.json", isDirectory: false), .init(name: "docs", isDirectory: true),
                    .init(name: ".hidden", isDirectory: false), .init(name: "notes.txt", isDirectory: false),
                ],
                "/home/me/docs/": [.init(name: "x.json", isDirectory: false)],
                "/": [.init(name: "home", isDirectory: true), .init(name: "etc", isDirectory: true)],
            ]
            return tree[path.hasSuffix("/") ? path : path + "/"]
        },
        home: "/home/me", currentDirectory: "/home/me")

    let completer = Completer(root: root, library: nil, fileNames: fileNames)

    @Test func anOptionsValuesFollowIt() {
        #expect(completer.completions(for: "search --color ", cursor: 15) == ["always", "auto", "never"])
        #expect(completer.completions(for: "search --color a", cursor: 16) == ["always", "auto"])
        #expect(completer.completions(for: "search --color=n", cursor: 16) == ["--color=never"])
        #expect(completer.completions(for: "show 327 --image-format s", cursor: 25) == ["sixel", "symbols"])
        #expect(completer.completions(for: "search --limit ", cursor: 15).isEmpty)
    }

    @Test func fileNamesFollowFileOptionsAndArguments() {
        #expect(completer.completions(for: "search --db ", cursor: 12) == ["a\\ b.json", "docs/", "notes.txt"])
        #expect(
            completer.completions(for: "fav import ", cursor: 11) == ["a\\ b.json", "docs/"],
            "json files and directories")
        #expect(completer.completions(for: "fav import d", cursor: 12) == ["docs/"])
        #expect(completer.completions(for: "fav import docs/", cursor: 16) == ["docs/x.json"])
        #expect(completer.completions(for: "fav import ~/d", cursor: 14) == ["~/docs/"])
        #expect(completer.completions(for: "fav import ~", cursor: 12) == ["~/"])
        #expect(completer.completions(for: "fav import /h", cursor: 13) == ["/home/"])
        #expect(completer.completions(for: "fav import --db n", cursor: 17) == ["notes.txt"])
        #expect(completer.completions(for: "fav import --db x.sqlite ", cursor: 25) == ["a\\ b.json", "docs/"])
        #expect(completer.completions(for: "fav import a.json ", cursor: 18).isEmpty, "one file only")
        #expect(completer.completions(for: "fav import .", cursor: 12).isEmpty, ".hidden is not a json file")
        #expect(completer.completions(for: "search --db .", cursor: 13) == [".hidden"], "hidden files when asked")
        #expect(completer.completions(for: "search --db=n", cursor: 13) == ["--db=notes.txt"])
        #expect(completer.completions(for: "fav dump ", cursor: 9) == ["docs/"])
        #expect(completer.completions(for: "fav import nowhere/", cursor: 19).isEmpty)
    }

    @Test func noWordIsOfferedTwice() {
        let root = CommandSpec(
            name: "x",
            subcommands: [
                CommandSpec(name: "stats", options: ["-h", "--help", "--help", "--json"]),
                CommandSpec(name: "status", aliases: ["stats"]),
            ])
        let completer = Completer(root: root, library: nil, fileNames: Self.fileNames)
        #expect(completer.completions(for: "stats --", cursor: 8) == ["--help", "--json"])
        #expect(completer.completions(for: "stat", cursor: 4) == ["stats", "status"])
    }
}

@Suite("scripted sessions")
struct SessionTests {
    struct Run {
        var summary: Session.Summary
        var transcript: Transcript
        var calls: [[String]]
    }

    func run(_ lines: [String], index: OpenIndex? = nil, interrupts: any InterruptSource = NoInterrupts()) async throws
        -> Run
    {
        let index = if let index { index } else { try await FixtureIndex.make() }
        let recorder = RecordingHost()
        let transcript = Transcript()
        let session = Session(
            host: recorder.makeHost(output: transcript), index: index, input: ScriptedLines(lines),
            output: transcript, interrupts: interrupts)
        let summary = await session.run()
        return Run(summary: summary, transcript: transcript, calls: recorder.recorded)
    }

    @Test func shortcutsBecomeCommands() async throws {
        let index = try await FixtureIndex.make()
        _ = try index.library.show(.number(327))
        let result = try await run(
            [
                "327", "#149 --json", "n", "p --json", "r", "l", "e", "next", "fav", "tag sql", "untag sql",
                "tag 149 x",
                "fav add", "fav add sql", "fav remove", "fav list", "stats", "show --help",
            ],
            index: index)
        #expect(
            result.calls == [
                ["show", "327"], ["show", "#149", "--json"], ["next"], ["prev", "--json"], ["random"], ["latest"],
                ["explain"], ["next"], ["fav", "add", "327"], ["fav", "tag", "327", "sql"],
                ["fav", "untag", "327", "sql"],
                ["fav", "tag", "149", "x"], ["fav", "add", "327"], ["fav", "add", "327", "sql"],
                ["fav", "remove", "327"],
                ["fav", "list"], ["stats"], ["show", "--help"],
            ])
        #expect(result.summary.failures == 0)
        #expect(result.transcript.output.contains("ran show 327\n"))
        #expect(result.transcript.output.hasSuffix("USAGE: xkcd-search show\n"))
    }

    @Test func shortcutsOnTheCurrentComicNeedOne() async throws {
        let result = try await run(["fav", "tag sql", "untag sql"])
        #expect(result.calls.isEmpty)
        #expect(result.summary.failures == 3)
        #expect(
            result.transcript.errors.split(separator: "\n").allSatisfy { $0 == "error: \(REPLError.noCurrentComic)" })
    }

    @Test func aBareQuerySearchesAndMoreOrEnterPages() async throws {
        let result = try await run(["search --limit 2 physics", "", "more", "", "more", "bobby tables", "", "more"])
        let pages = result.transcript.output.split(separator: "\n").map(String.init)
        #expect(pages.count == 7, "\(result.transcript.output)")
        #expect(pages[0].hasPrefix("page 1: ") && pages[0].hasSuffix("next page: more (or Enter)"))
        #expect(pages[1].hasPrefix("page 2: "))
        #expect(pages[2].hasPrefix("page 3: "))
        #expect(pages[3].hasPrefix("page 4: ") && !pages[3].contains("next page"))
        // After the last page Enter does nothing and `more` says so.
        #expect(pages[4].hasPrefix("no more results (7 in all)"))
        #expect(pages[5].hasPrefix("page 1: #327"))
        #expect(pages[6].hasPrefix("no more results"))
        #expect(result.summary.failures == 0)
        #expect(Set(pages[0...3].flatMap { $0.split(separator: " ").filter { $0.hasPrefix("#") } }).count == 7)
    }

    @Test func moreBeforeAnySearchIsAnError() async throws {
        let result = try await run(["more", "", ""])
        #expect(result.summary.failures == 1)
        #expect(result.transcript.errors == "error: no search to continue; type a query first\n")
    }

    @Test func badLinesPrintOneErrorAndTheSessionGoesOn() async throws {
        let long = "search " + String(repeating: "ünïcödé 😀 ", count: 10_000)
        let result = try await run([
            "stats --bad", #"fav add "327"#, "show fail", "title:\"unclosed", long, "😀", "stats",
        ])
        #expect(result.summary.failures == 6, "\(result.transcript.errors)")
        let errors = result.transcript.errors.split(separator: "\n").map(String.init)
        #expect(
            errors == [
                "error: unknown option '--bad'", "error: unclosed \" quote", "error: \(LibraryError.emptyIndex)",
                "error: unclosed quote starting at column 7",
                "error: the query is too long (169999 bytes; the limit is 4096 bytes)",
                "error: \(SearchError.nothingToSearch)",
            ])
        #expect(result.transcript.output.hasSuffix("ran stats\n"))
        #expect(result.calls.last == ["stats"])
    }

    /// The words other prompts leave with end the session too, alone on a line; with more
    /// words after them they are searched.
    @Test(arguments: ["quit", "exit", "q", "\\q", "QUIT", ":q", ".quit", ".exit"])
    func quitWordsEndTheSession(word: String) async throws {
        let result = try await run([word, "stats"])
        #expect(result.calls.isEmpty, "\(word): \(result.calls)")
        #expect(result.summary.failures == 0)
    }

    @Test func aQuitWordWithMoreWordsIsSearched() async throws {
        let result = try await run(["quit smoking", "stats"])
        #expect(result.transcript.output.hasPrefix("page 1: "), "searched: \(result.transcript.output)")
        #expect(result.summary.failures == 0)
        #expect(result.calls.contains { $0.contains("stats") }, "\(result.calls)")
    }

    @Test func quitEndsTheSession() async throws {
        let result = try await run([":help", ":quit", "stats"])
        #expect(result.transcript.output.contains("more, or Enter"))
        #expect(result.transcript.output.contains("related              the comics linked to and from its explanation"))
        #expect(result.calls.isEmpty)
    }

    /// psql's and sqlite3's ways of asking for help, alone on a line, show the help rather than
    /// searching for them.
    @Test(arguments: ["?", "\\?", ".help", ":?"])
    func otherPromptsHelpWordsShowTheHelp(word: String) async throws {
        let result = try await run([word, "stats"])
        #expect(result.transcript.output.contains("more, or Enter"), "\(word): \(result.transcript.output)")
        #expect(!result.transcript.output.hasPrefix("page 1: "), "\(word) was searched")
        #expect(result.calls == [["stats"]], "\(word): \(result.calls)")
    }

    @Test func ctrlCDuringASearchReturnsToThePrompt() async throws {
        let result = try await run(["bobby tables", "stats"], interrupts: InterruptOnSecondLook())
        #expect(result.transcript.output.hasPrefix("^C\n"), "\(result.transcript.output)")
        #expect(result.transcript.output.hasSuffix("ran stats\n"))
        #expect(result.summary.failures == 0)
    }

    /// Lines that came at once (a paste) are one passage for `relevant` when the first would be
    /// searched; lines typed ahead that start with commands run one by one.
    @Test func aPasteOfSeveralLinesIsOnePassageUnlessItStartsWithACommand() async throws {
        let recorder = RecordingHost()
        let transcript = Transcript()
        let session = Session(
            host: recorder.makeHost(output: transcript), index: try await FixtureIndex.make(),
            input: ScriptedLines(inputs: [
                .pasted(["Our whole company runs on", "a tiny library."]), .pasted(["stats", "327"]),
            ]),
            output: transcript)
        #expect(await session.run().failures == 0)
        #expect(
            recorder.recorded == [
                ["relevant", "--", "Our whole company runs on a tiny library."], ["stats"], ["show", "327"],
            ])
    }

    @Test func ctrlCAtThePromptDropsTheLine() async throws {
        let recorder = RecordingHost()
        let transcript = Transcript()
        let session = Session(
            host: recorder.makeHost(output: transcript), index: try await FixtureIndex.make(),
            input: ScriptedLines(inputs: [.interrupted, .line("stats"), .end, .line("never")]), output: transcript)
        #expect(await session.run().failures == 0)
        #expect(recorder.recorded == [["stats"]])
    }
}
