import ArgumentParser
import Testing
import XKCDCommandLine
import XKCDModel
import _XKCDTestSupport

@testable import xkcd_search

/// `search` reads its plainest arguments without ArgumentParser; whatever that reader accepts,
/// ArgumentParser must read the same way, and what ArgumentParser refuses it must leave alone.
@Suite struct PlainSearchArgumentsTests {
    typealias Request = XKCDSearch.Search.Invocation

    /// ArgumentParser's reading, or nil when it refuses the arguments.
    private func parsed(_ arguments: [String]) -> Request? {
        (try? XKCDSearch.Search.parseAsRoot(arguments) as? XKCDSearch.Search)?.invocation
    }

    /// ArgumentParser's reading of `relevant` with `arguments`, or nil when it refuses them.
    private func parsedRelevant(_ arguments: [String]) -> Request? {
        (try? XKCDSearch.parseAsRoot(["relevant"] + arguments) as? XKCDSearch.Relevant)?.invocation
    }

    @Test(arguments: [
        (["nebraska", "dependency"], Request(words: ["nebraska", "dependency"])),
        (
            ["--db", "/tmp/x.sqlite", "bobby", "--json"],
            Request(database: "/tmp/x.sqlite", words: ["bobby"], json: true)
        ),
        (["--exact", "velociraptr"], Request(words: ["velociraptr"], exact: true)),
        (["--oneline", "physics"], Request(words: ["physics"], oneline: true)),
        (["--no-pager", "physics"], Request(words: ["physics"], paging: false)),
        (
            ["--color", "never", "--limit", "5", "--page", "2", "a"],
            Request(words: ["a"], color: .never, limit: 5, page: 2)
        ),
        (["-v", "--", "-physics", "--json"], Request(words: ["-physics", "--json"], verbose: true)),
        (["title:lisp", "num:200..250", "--verbose"], Request(words: ["title:lisp", "num:200..250"], verbose: true)),
        (["\"little bobby tables\""], Request(words: ["\"little bobby tables\""])),
        // A lone dash is standard input, a word to both readers.
        (["-"], Request(words: ["-"])),
        (["--json", "-"], Request(words: ["-"], json: true)),
    ])
    func plainArgumentsAreReadAsArgumentParserReadsThem(arguments: [String], expected: Request) {
        #expect(Request(plainArguments: arguments) == expected)
        #expect(parsed(arguments) == expected)
    }

    /// Left to ArgumentParser: help, other spellings, values it refuses or checks, repeats.
    @Test(arguments: [
        [], ["--json"], ["--help"], ["-h"], ["--version"], ["a", "-physics"], ["--db=x", "a"],
        ["--db"], ["a", "--db"], ["--db", "--json", "a"], ["--color", "sometimes", "a"], ["--limit", "0", "a"],
        ["--limit", "1001", "a"], ["--limit", "ten", "a"], ["--page", "0", "a"], ["--page", "-1", "a"],
        ["--limit", "5", "--limit", "6", "a"], ["--json", "--json", "a"], ["--exact", "--exact", "a"], ["-vv", "a"],
        ["--no-pager", "--no-pager", "a"],
        ["-j", "a"],
        ["a", "--generate-completion-script", "bash"], ["a", "--experimental-dump-help"],
    ])
    func anythingElseIsLeftToArgumentParser(arguments: [String]) {
        #expect(Request(plainArguments: arguments) == nil)
    }

    /// Random mixes of words, options, values and near misses: where the plain reader reads
    /// something, ArgumentParser reads the same.
    @Test func randomArgumentsAgreeWithArgumentParser() {
        var random = SplitMix64(seed: 0x7365_6172_6368)  // "search"
        let pieces = [
            "word", "two words", "-", "--", "-x", "--json", "--exact", "--oneline", "--no-pager", "-v", "--verbose",
            "--db",
            "--color", "--limit", "--page",
            "never", "always", "auto", "loud", "0", "1", "7", "1000", "1001", "-3", "+4", " 5", "", "--db=x", "title:x",
            "\"a b\"", "é", "OR", "--help",
        ]
        var accepted = 0
        for _ in 0..<5_000 {
            let arguments = (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)!
            }
            guard let plain = Request(plainArguments: arguments) else { continue }
            accepted += 1
            #expect(parsed(arguments) == plain, "arguments: \(arguments)")
        }
        #expect(accepted > 250)
    }

    /// `relevant` takes the same plain arguments but `--exact`, `--oneline` and `--page`, and
    /// shows 5 comics unless told: read as ArgumentParser reads them, or left to it.
    @Test(arguments: [
        (
            ["our", "build", "takes", "twenty", "minutes"],
            Request(words: ["our", "build", "takes", "twenty", "minutes"], limit: 5)
        ),
        (
            ["--db", "/tmp/x.sqlite", "-", "--json"],
            Request(database: "/tmp/x.sqlite", words: ["-"], limit: 5, json: true)
        ),
        (
            ["--color", "always", "--limit", "12", "-v", "--", "-a", "b"],
            Request(words: ["-a", "b"], color: .always, limit: 12, verbose: true)
        ),
        (["--exact", "a"], nil), (["--oneline", "a"], nil), (["--page", "2", "a"], nil), (["--limit", "0", "a"], nil),
        (["--json"], nil), (["--help"], nil), (["--no-pager", "a"], nil),
    ])
    func relevantArgumentsAreReadAsArgumentParserReadsThem(arguments: [String], expected: Request?) {
        #expect(Request(plainArguments: arguments, command: .relevant) == expected)
        if let expected { #expect(parsedRelevant(arguments) == expected) }
    }

    @Test func randomRelevantArgumentsAgreeWithArgumentParser() {
        var random = SplitMix64(seed: 0x7265_6c65_7661_6e74)  // "relevant"
        let pieces = [
            "word", "two words", "-", "--", "-x", "--json", "--exact", "--oneline", "--no-pager", "-v", "--verbose",
            "--db",
            "--color", "--limit", "--page", "never", "always", "0", "1", "5", "1000", "1001", "-3", "", "--db=x",
            "é", "--help",
        ]
        var accepted = 0
        for _ in 0..<3_000 {
            let arguments = (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)!
            }
            guard let plain = Request(plainArguments: arguments, command: .relevant) else { continue }
            accepted += 1
            #expect(parsedRelevant(arguments) == plain, "arguments: \(arguments)")
        }
        #expect(accepted > 150)
    }

    /// The next page's command keeps the index, the page size and the words as typed, quoted
    /// for a shell, after `--` when a word starts with a dash.
    @Test(arguments: [
        (["the"], "xkcd-search search the --page 2"),
        (["--limit", "2", "the", "it's"], "xkcd-search search the 'it'\\''s' --limit 2 --page 2"),
        (
            ["--db", "/tmp/my index.sqlite", "--", "the", "-cat"],
            "xkcd-search search --db '/tmp/my index.sqlite' --page 2 -- the -cat"
        ),
        (
            ["#327", "\"little bobby\"", "res*", "$HOME"],
            "xkcd-search search '#327' '\"little bobby\"' 'res*' '$HOME' --page 2"
        ),
        (["Ünïcödé", "num:1..5", "a=b"], "xkcd-search search Ünïcödé num:1..5 a=b --page 2"),
        (["=ls", "~"], "xkcd-search search '=ls' '~' --page 2"),  // zsh expands =ls
        (["--db", "./-x.sqlite", "a"], "xkcd-search search a --db ./-x.sqlite --page 2"),
    ])
    func theNextPageCommandIsOneAShellRunsAsTyped(arguments: [String], command: String) throws {
        let request = try #require(Request(plainArguments: arguments))
        #expect(request.nextPageCommand == command)
    }

    /// An index path starting with a dash is given as `--db=…`, which ArgumentParser reads.
    @Test func anIndexPathStartingWithADashStaysAValue() throws {
        let request = Request(database: "-x.sqlite", words: ["a"])
        #expect(request.nextPageCommand == "xkcd-search search a --db=-x.sqlite --page 2")
        #expect(parsed(["--db=-x.sqlite", "a"])?.database == "-x.sqlite")
    }
}
