import Foundation
import Testing
import _XKCDTestSupport

/// An index of the fixture mirror, built once through the binary and copied for each test, so
/// that every test starts from the same comics and no remembered state.
enum FixtureIndex {
    private static let template = Task<URL, any Error> {
        let directory = try makeTemporaryDirectory("xkcd-cli-browse-template")
        let db = directory.appendingPathComponent("index.sqlite")
        // Embedded, as `make demo` indexes: the tests of search by meaning and `related` read it.
        let result = try await BinaryRunner(sandbox: directory, embeds: true)
            .run(["index", "--db", db.path, "--mirror", Fixtures.corpusURL.path])
        guard result.status == 0 else { throw TemplateFailed(output: result.description) }
        return db
    }

    struct TemplateFailed: Error, CustomStringConvertible {
        var output: String
        var description: String { output }
    }

    /// A copy of the fixture index inside `directory`; returns its path.
    static func copy(into directory: URL) async throws -> String {
        let source = try await template.value
        let target = directory.appendingPathComponent("index.sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
        }
        return target.path
    }
}

/// A test's own copy of the fixture index and a runner whose every call uses it.
struct BrowseSandbox {
    let directory: URL
    let db: String
    let cli: BinaryRunner

    func run(_ arguments: String..., environment: [String: String] = [:]) async throws -> BinaryRunner.Output {
        try await cli.run(arguments + ["--db", db], environment: environment)
    }

    /// The JSON a command printed; a search that found nothing exits 1 and prints JSON too.
    func json(_ arguments: String...) async throws -> [String: Any] {
        let output = try await cli.run(arguments + ["--db", db])
        #expect(output.status == 0 || (arguments.first == "search" && output.status == 1), "\(output)")
        return try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    }
}

func withBrowseSandbox(_ body: (BrowseSandbox) async throws -> Void) async throws {
    try await withTemporaryDirectory { directory in
        let db = try await FixtureIndex.copy(into: directory)
        try await body(BrowseSandbox(directory: directory, db: db, cli: try BinaryRunner(sandbox: directory)))
    }
}

/// Expects a failure: a non-zero status, nothing on stdout, one line on stderr containing `message`.
func expectFailure(_ output: BinaryRunner.Output, _ message: String, sourceLocation: SourceLocation = #_sourceLocation)
{
    #expect(output.status != 0, "\(output)", sourceLocation: sourceLocation)
    #expect(output.stdout.isEmpty, "\(output)", sourceLocation: sourceLocation)
    #expect(output.stderrLines.count == 1, "\(output)", sourceLocation: sourceLocation)
    #expect(output.stderr.contains(message), "\(output)", sourceLocation: sourceLocation)
}

@Suite("show, explain, next/prev, random, link, open and about through the binary")
struct BrowseCommandTests {
    static let credit = "xkcd.com (CC BY-NC 2.5) · explanation: explain xkcd (CC BY-SA 3.0)"

    @Test func showPrintsLabelledBlocksAndTheCredit() async throws {
        try await withBrowseSandbox { sandbox in
            let show = try await sandbox.run("show", "#327", environment: ["NO_COLOR": "", "COLUMNS": ""])
            #expect(show.status == 0, "\(show)")
            let lines = show.stdoutLines
            #expect(lines.first == "#327  Exploits of a Mom  (2007-10-10)")
            for text in [
                "Title text", "Her daughter is named Help I'm trapped in a driver's license factory.",
                "https://imgs.xkcd.com/comics/exploits_of_a_mom.png", "https://xkcd.com/327/",
                "https://www.explainxkcd.com/wiki/index.php/327", "Transcript", "Bobby Tables", "Categories",
            ] {
                #expect(show.stdout.contains(text), "no \(text) in \(show)")
            }
            #expect(!show.stdout.contains("Explanation"))
            #expect(lines.last == Self.credit)
            // A pipe gets plain text even without NO_COLOR.
            #expect(!show.stdout.contains("\u{1B}"))
        }
    }

    @Test func showJSONHoldsTheDocumentedKeys() async throws {
        try await withBrowseSandbox { sandbox in
            let plain = try await sandbox.json("show", "327", "--json")
            for key in ["num", "title", "date", "alt", "img", "url", "explainUrl", "transcript", "categories"] {
                #expect(plain[key] != nil, "no \(key) in \(plain)")
            }
            #expect(plain["num"] as? Int == 327)
            #expect(plain["date"] as? String == "2007-10-10")
            #expect(plain["url"] as? String == "https://xkcd.com/327/")
            #expect(plain["explanation"] == nil)
            #expect((plain["categories"] as? [String])?.isEmpty == false)

            let explained = try await sandbox.json("show", "327", "--explain", "--json")
            #expect((explained["explanation"] as? String)?.contains("Bobby") == true)

            let unexplained = try await sandbox.json("show", "3282", "--explain", "--json")
            #expect(unexplained["explanation"] is NSNull)
            #expect(unexplained["num"] as? Int == 3282)
        }
    }

    @Test func latestAndRandomShowIndexedComics() async throws {
        try await withBrowseSandbox { sandbox in
            #expect(try await sandbox.json("show", "latest", "--json")["num"] as? Int == 3282)
            #expect(try await sandbox.json("latest", "--json")["num"] as? Int == 3282)
            for _ in 0..<3 {
                let num = try #require(try await sandbox.json("random", "--json")["num"] as? Int)
                #expect(Fixtures.comicIDs.contains(num))
                #expect(
                    Fixtures.comicIDs.contains(
                        try #require(try await sandbox.json("show", "random", "--json")["num"] as? Int)))
            }
        }
    }

    @Test(arguments: [
        ("0", "#0 does not exist: comics start at #1"),
        ("4000", "#4000 does not exist yet: the latest is #3282"),
        ("404", "#404 does not exist: xkcd skipped it on purpose (HTTP 404 Not Found)"),
        ("500", "#500 is not in the index; run 'xkcd-search index' to fetch it"),
        ("abc", "'abc' is not a comic number"),
    ])
    func showRejectsBadNumbersInOneLine(_ number: String, _ message: String) async throws {
        try await withBrowseSandbox { sandbox in
            for command in ["show", "explain", "link", "open"] {
                expectFailure(try await sandbox.run(command, number), message)
            }
        }
    }

    @Test func explainShowsTheExplanationTriviaAndWikiLink() async throws {
        try await withBrowseSandbox { sandbox in
            let explain = try await sandbox.run("explain", "327")
            #expect(explain.status == 0, "\(explain)")
            #expect(explain.stdoutLines.first == "#327  Exploits of a Mom  (2007-10-10)")
            #expect(explain.stdout.contains("Explanation"))
            #expect(explain.stdout.contains("Bobby"))
            #expect(explain.stdout.contains("https://www.explainxkcd.com/wiki/index.php/327"))
            #expect(!explain.stdout.contains("Title text"))
            #expect(explain.stdoutLines.last == Self.credit)

            let json = try await sandbox.json("explain", "327", "--json")
            for key in ["num", "title", "explanation", "trivia", "incomplete", "explainUrl"] {
                #expect(json[key] != nil, "no \(key) in \(json)")
            }

            expectFailure(try await sandbox.run("explain", "3282"), "#3282 has no explanation yet on explain xkcd")
            // As JSON, a comic without an explanation is no error: its keys are null.
            let none = try await sandbox.run("explain", "3282", "--json")
            #expect(none.status == 0 && none.stderr.isEmpty, "\(none)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(none.stdout.utf8)) as? [String: Any])
            #expect(object["num"] as? Int == 3282)
            for key in ["explanation", "trivia", "incomplete"] {
                #expect(object[key] is NSNull, "\(key) in \(none.stdout)")
            }
        }
    }

    @Test func longTextWrapsToCOLUMNSAndStaysWholeOtherwise() async throws {
        try await withBrowseSandbox { sandbox in
            let wrapped = try await sandbox.run("explain", "327", environment: ["COLUMNS": "50"])
            #expect(wrapped.status == 0, "\(wrapped)")
            let prose = wrapped.stdoutLines.filter { $0.hasPrefix("  ") && $0.dropFirst(2).contains(" ") }
            #expect(!prose.isEmpty)
            #expect(prose.allSatisfy { $0.count <= 50 }, "\(wrapped)")

            let whole = try await sandbox.run("explain", "327", environment: ["COLUMNS": ""])
            #expect(whole.stdoutLines.contains { $0.count > 200 }, "\(whole)")
        }
    }

    @Test func nextAndPrevStepFromTheComicShownLastAcrossRuns() async throws {
        try await withBrowseSandbox { sandbox in
            expectFailure(try await sandbox.run("next"), "no comic shown yet")
            func num(_ command: String) async throws -> Int? {
                try await sandbox.json(command, "--json")["num"] as? Int
            }
            _ = try await sandbox.run("show", "1")
            expectFailure(try await sandbox.run("prev"), "#1 is the first comic: there is nothing before it")
            #expect(try await num("next") == 2)
            _ = try await sandbox.run("show", "10")
            #expect(try await num("next") == 149)  // 11-148 are not in the fixtures
            #expect(try await num("previous") == 10)
            _ = try await sandbox.run("show", "402")  // not indexed: remembered stays 10
            #expect(try await num("next") == 149)
            _ = try await sandbox.run("latest")
            expectFailure(try await sandbox.run("next"), "#3282 is the latest comic: there is nothing after it")
            #expect(try await num("prev") == 3175)
            let shown = try await sandbox.run("show")
            #expect(shown.stdoutLines.first?.hasPrefix("#3175  ") == true, "\(shown)")
            #expect(try await sandbox.run("link").stdout.hasPrefix("xkcd #3175: "))
        }
    }

    @Test func randomAmongFavouritesAndTags() async throws {
        try await withBrowseSandbox { sandbox in
            expectFailure(try await sandbox.run("random", "--fav"), "there are no favourites yet")
            _ = try await sandbox.run("fav", "add", "327", "sql")
            _ = try await sandbox.run("fav", "add", "149")
            for _ in 0..<3 {
                #expect(try await sandbox.json("random", "--tag", "SQL", "--json")["num"] as? Int == 327)
                #expect([149, 327].contains(try await sandbox.json("random", "--fav", "--json")["num"] as? Int ?? 0))
            }
            expectFailure(try await sandbox.run("random", "--tag", "nope"), "no favourite is tagged 'nope'")
            expectFailure(try await sandbox.run("random", "--tag", "a b"), "'a b' is not a valid tag")
        }
    }

    /// Global options before the command, as git and gh take them, and the index from the
    /// environment; `--db` wins over the environment.
    @Test func globalOptionsGoBeforeTheCommandOrComeFromTheEnvironment() async throws {
        try await withBrowseSandbox { sandbox in
            for arguments in [
                ["--db", sandbox.db, "show", "327"], ["-v", "--db=\(sandbox.db)", "show", "327"],
                ["--db", sandbox.db, "--color", "never", "search", "exploits", "of", "a", "mom"],
                ["--db", sandbox.db, "fav", "add", "327"],
            ] {
                let output = try await sandbox.cli.run(arguments)
                #expect(output.status == 0, "\(arguments): \(output)")
                #expect(output.stdout.contains("327"), "\(arguments): \(output)")
            }
            let fromEnvironment = try await sandbox.cli.run(
                ["show", "327"], environment: ["XKCD_SEARCH_DB": sandbox.db])
            #expect(fromEnvironment.stdoutLines.first == "#327  Exploits of a Mom  (2007-10-10)", "\(fromEnvironment)")
            let overridden = try await sandbox.cli.run(
                ["--db", sandbox.db, "show", "327"], environment: ["XKCD_SEARCH_DB": "/nonexistent/index.sqlite"])
            #expect(overridden.status == 0, "\(overridden)")
            // After `--` everything is words, a `--db` included.
            let words = try await sandbox.cli.run(
                ["search", "--", "--db", "x"], environment: ["XKCD_SEARCH_DB": sandbox.db])
            #expect(words.status == 0 && words.stderr.isEmpty, "\(words)")
        }
    }

    @Test func linkPrintsTheShareLine() async throws {
        try await withBrowseSandbox { sandbox in
            let link = try await sandbox.run("link", "327")
            #expect(link.status == 0, "\(link)")
            #expect(link.stdout == "xkcd #327: Exploits of a Mom https://xkcd.com/327/\n")
            #expect(
                try await sandbox.run("link", "#259").stdout == "xkcd #259: Clichéd Exchanges https://xkcd.com/259/\n")
            // Sharing a comic is showing it: `next` goes on from there.
            #expect(try await sandbox.run("next").stdoutLines.first?.hasPrefix("#327  ") == true)
        }
    }

    @Test func openRunsBROWSERWithTheURL() async throws {
        try await withBrowseSandbox { sandbox in
            let script = sandbox.directory.appendingPathComponent("fake-browser")
            let opened = sandbox.directory.appendingPathComponent("opened.txt")
            try "#!/bin/sh\nprintf '%s' \"$1\" > '\(opened.path)'\n".write(
                to: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)

            let comic = try await sandbox.run("open", "327", environment: ["BROWSER": script.path])
            #expect(comic.status == 0, "\(comic)")
            #expect(try String(contentsOf: opened, encoding: .utf8) == "https://xkcd.com/327/")
            // Opening a comic is showing it: `next` goes on from there.
            #expect(try await sandbox.run("next").stdoutLines.first?.hasPrefix("#472  ") == true)

            let explain = try await sandbox.run(
                "open", "327", "--explain", environment: ["BROWSER": "nothing-here:" + script.path])
            #expect(explain.status == 0, "\(explain)")
            #expect(try String(contentsOf: opened, encoding: .utf8) == "https://www.explainxkcd.com/wiki/index.php/327")

            let failing = sandbox.directory.appendingPathComponent("failing-browser")
            try "#!/bin/sh\nexit 3\n".write(to: failing, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: failing.path)
            let failed = try await sandbox.run("open", "327", environment: ["BROWSER": failing.path])
            #expect(failed.status != 0)
            #expect(failed.stdout == "https://xkcd.com/327/\n")
            #expect(failed.stderr.contains("exit status 3"), "\(failed)")

            // The entries are tried in turn: after one that fails, the next opens the page.
            try "".write(to: opened, atomically: true, encoding: .utf8)
            let second = try await sandbox.run(
                "open", "472", environment: ["BROWSER": failing.path + ":" + script.path])
            #expect(second.status == 0 && second.stderr.isEmpty, "\(second)")
            #expect(try String(contentsOf: opened, encoding: .utf8) == "https://xkcd.com/472/")

            // The browser has this process's standard input, as a terminal browser needs it.
            let reader = sandbox.directory.appendingPathComponent("reading-browser")
            try "#!/bin/sh\nread line; printf '%s %s' \"$line\" \"$1\" > '\(opened.path)'\n".write(
                to: reader, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: reader.path)
            let typed = try await sandbox.cli.run(
                ["open", "327", "--db", sandbox.db], environment: ["BROWSER": reader.path], stdin: Data("q\n".utf8))
            #expect(typed.status == 0, "\(typed)")
            #expect(try String(contentsOf: opened, encoding: .utf8) == "q https://xkcd.com/327/")
        }
    }

    @Test func openWithoutABrowserPrintsTheURLAndSaysWhy() async throws {
        try await withBrowseSandbox { sandbox in
            let emptyPath = sandbox.directory.appendingPathComponent("empty-bin")
            try FileManager.default.createDirectory(at: emptyPath, withIntermediateDirectories: true)
            let open = try await sandbox.run("open", "327", environment: ["BROWSER": "", "PATH": emptyPath.path])
            #expect(open.status == 1, "nothing opened the page: \(open)")
            #expect(open.stdout == "https://xkcd.com/327/\n")
            #expect(open.stderr.contains("$BROWSER is not set and xdg-open is not on PATH"), "\(open)")
        }
    }

    @Test func aboutNamesTheSourcesAndLicences() async throws {
        try await withTemporaryDirectory { directory in
            let about = try await BinaryRunner(sandbox: directory).run(["about"])
            #expect(about.status == 0, "\(about)")
            for text in [
                "Randall Munroe", "CC BY-NC 2.5", "https://xkcd.com/license.html", "CC BY-SA 3.0",
                "https://www.explainxkcd.com", "#3282", "2026-08-08", "2025-11-29", "MIT",
            ] {
                #expect(about.stdout.contains(text), "no \(text) in \(about)")
            }
        }
    }
}
