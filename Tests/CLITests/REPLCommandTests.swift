import Foundation
import Testing
import XKCDModel
import _XKCDTestSupport

@Suite("repl through the binary")
struct REPLCommandTests {
    @Test func aScriptRunsEveryCommandAndShortcut() async throws {
        try await withBrowseSandbox { sandbox in
            let long = "search " + String(repeating: "bobby", count: 20_000)  // a 100 KB line
            let script =
                [
                    "search --limit 2 physics", "", "more", "bobby tables", "327", "n", "p", "fav", "tag sql",
                    "untag sql", "tag classic", "fav list", "r", "l", "149", "e", "stats", ":help", "show nope",
                    "nonsense --words 😀 ünïcödé", long, "fav tags", ":quit", "stats",
                ].joined(separator: "\n") + "\n"
            let result = try await sandbox.cli.run(["repl", "--db", sandbox.db], stdin: Data(script.utf8))
            #expect(result.status == 1, "a line failed, so the status is non-zero: \(result)")
            let out = result.stdout
            #expect(!out.contains("xkcd> "), "no prompt when standard input is not a terminal")
            #expect(!out.contains("\u{1B}"), "no escape sequences")
            // Searching and paging, with the REPL's next-page hint.
            #expect(out.contains("1-2 of 7 results · next page: more (or Enter)"), "\(result)")
            #expect(out.contains("3-4 of 7 results"))
            #expect(out.contains("5-6 of 7 results"))
            #expect(out.contains("#327  Exploits of a Mom  (2007-10-10)\n    …"))
            // A bare number, n and p.
            #expect(out.contains("#327  Exploits of a Mom  (2007-10-10)\n\nTitle text"))
            #expect(out.contains("#472  House of Pancakes  (2008-09-05)\n\nTitle text"))
            // fav, tag and untag on the current comic (#327 after n, p).
            #expect(out.contains("added #327 Exploits of a Mom to the favourites\n"))
            #expect(
                out.contains(
                    "tagged sql\nuntagged sql\ntagged classic\n#327  Exploits of a Mom  (2007-10-10)  [classic]\n"))
            #expect(out.contains("#3282  Trick Play  (2026-08-07)\n\nTitle text"))
            // e explains the current comic (#149).
            #expect(out.contains("#149  Sandwich  (2006-08-28)\n\nExplanation"))
            #expect(out.contains("comics:        \(Fixtures.comicIDs.count) (latest #3282)"))
            #expect(out.contains("more, or Enter"))
            #expect(out.hasSuffix("classic  1\n"), "fav tags ran, and nothing after :quit")
            // One line per failure, naming the script's line, and the session went on.
            #expect(
                result.stderrLines == [
                    "line 19: error: 'nope' is not a comic number (try 327, #327, latest or random)",
                    "line 21: error: the query is too long (100000 bytes; the limit is 4096 bytes)",
                ], "\(result)")
            // The same output as the command line (but the file size, which the writes since changed).
            let stats = try await sandbox.run("stats")
            for line in stats.stdoutLines where !line.hasPrefix("database:") {
                #expect(out.contains(line + "\n"), "\(line)")
            }
        }
    }

    /// `search --exact` in the REPL searches the words as typed, as on the command line.
    @Test func exactTurnsSpellingCorrectionOffInTheREPL() async throws {
        try await withBrowseSandbox { sandbox in
            let script = "search pasword strenght\nsearch --exact pasword strenght\n"
            let result = try await sandbox.cli.run(["repl", "--db", sandbox.db], stdin: Data(script.utf8))
            let corrections = result.stdout.components(
                separatedBy: "showing results for \u{201C}password strength\u{201D}")
            #expect(corrections.count == 2, "corrected once, not under --exact: \(result)")
            #expect(result.stdout.hasSuffix("no comics found\n"), "\(result)")
        }
    }

    @Test func aCleanScriptExitsZero() async throws {
        try await withBrowseSandbox { sandbox in
            let result = try await sandbox.cli.run(["repl", "--db", sandbox.db], stdin: Data("327\nfav list\n".utf8))
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.hasSuffix("no favourites yet\n"))
            let bare = try await sandbox.cli.run(["--help"])
            #expect(bare.stdout.contains("repl"))
            // Without a terminal a bare xkcd-search prints the help, as before.
            let help = try await sandbox.cli.run([])
            #expect(help.status == 0)
            #expect(
                help.stdout.contains(
                    "USAGE: xkcd-search [--db <path>] [--verbose] [--color <color>] [--no-pager] <subcommand>"),
                "\(help)")
        }
    }

    /// Types keys at the line editor in a real pseudo-terminal. Swift has no pty helper, so the
    /// test hands a short pexpect script to python3: it spawns the binary under a pty, sends
    /// keys and waits for what the screen shows; the test checks its report and exit status.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func theLineEditorInAPseudoTerminal() async throws {
        try await withBrowseSandbox { sandbox in
            let state = sandbox.directory.appendingPathComponent("state")
            let script = #"""
                import os, sys, time, pexpect
                binary, db, state = sys.argv[1:4]
                env = dict(os.environ, XDG_STATE_HOME=state, TERM="xterm", NO_COLOR="1", LANG="C.UTF-8")
                p = pexpect.spawn(binary, ["repl", "--db", db, "--image", "never"], env=env, encoding="utf-8", timeout=600, dimensions=(40, 120))
                p.expect_exact("Type words to search, a number to show that comic, :help for more; quit or Ctrl-D to leave.")
                p.expect_exact("xkcd> ")
                p.send("sta\t")                        # completes to "stats "
                p.expect_exact("ts ")
                p.send("\r"); p.expect_exact("comics:        \#(Fixtures.comicIDs.count)"); p.expect_exact("xkcd> ")
                p.send("show 32\t")                    # not a word to complete: nothing
                p.send("7\r"); p.expect_exact("Exploits of a Mom"); p.expect_exact("xkcd> ")
                p.send("search bobb\t")                # an indexed word
                p.expect_exact("y"); p.send("\r"); p.expect_exact("result"); p.expect_exact("xkcd> ")
                p.send("\x1b[A")                       # Up recalls "search bobby "
                p.expect_exact("search bobby"); p.send("\r"); p.expect_exact("result"); p.expect_exact("xkcd> ")
                p.send("\x1b[A\x1b[A\r")               # two up: "show 327"
                p.expect_exact("Exploits of a Mom"); p.expect_exact("xkcd> ")
                p.send("bobby tab"); p.expect_exact("tab")
                p.sendintr()                           # Ctrl-C drops the line
                p.expect_exact("^C"); p.expect_exact("xkcd> "); keys_are_read(p)
                p.send("\x12sta")                      # Ctrl-R finds "stats"
                p.expect_exact("tats")
                p.send("\r"); p.expect_exact("comics:        \#(Fixtures.comicIDs.count)"); p.expect_exact("xkcd> ")
                p.send("ünïcödé 😀\r"); p.expect_exact("xkcd> "); keys_are_read(p)
                p.sendeof()                            # Ctrl-D on an empty line
                p.expect(pexpect.EOF); p.close()
                print("exit", p.exitstatus)
                """#
            let history = state.appendingPathComponent("xkcd-search/history")
            let result = try await runPython(script, arguments: [sandbox.cli.executable.path, sandbox.db, state.path])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.hasSuffix("exit 0\n"), "\(result.output)")
            let lines = try String(contentsOf: history, encoding: .utf8).split(separator: "\n")
            // libedit's format: a header, then each line with spaces as \040, stored without the
            // space a completion leaves at the end; the recalled "search bobby" is kept once.
            #expect(lines.first == "_HiStOrY_V2_")
            #expect(
                Array(lines.dropFirst()) == [
                    "stats", "show\\040327", "search\\040bobby", "show\\040327", "stats", "ünïcödé\\040😀",
                ], "the repeated search is kept once: \(lines)")
        }
    }

    /// Ctrl-D pressed while a line runs ends the session once the line is done, whenever it
    /// comes: right after Enter, before the answer (the line editor reads what waits after a
    /// line as more of a paste, and keeps the end it meets there), or while the command runs and
    /// the terminal edits lines itself (the kernel keeps it as an end-of-file mark, which libedit
    /// would read as a NUL byte). A pager that waits for a file stands for a long command.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func ctrlDPressedWhileALineRunsEndsTheSessionAfterIt() async throws
    {
        try await withBrowseSandbox { sandbox in
            let script = #"""
                import os, sys, termios, pexpect
                binary, db, directory = sys.argv[1:4]
                go = os.path.join(directory, "go")
                pager = "echo PAGER-WAITS; while [ ! -e '%s' ]; do sleep 0.05; done; cat >/dev/null" % go
                env = dict(os.environ, XDG_STATE_HOME=os.path.join(directory, "state"), TERM="xterm", NO_COLOR="1",
                           LANG="C.UTF-8", XKCD_SEARCH_PAGER=pager)
                def start():
                    p = pexpect.spawn(binary, ["repl", "--db", db, "--image", "never"], env=env, encoding="utf-8",
                                      timeout=600, dimensions=(20, 80))
                    p.expect_exact("xkcd> "); keys_are_read(p)
                    return p
                p = start()
                p.send("link 327\r\x04")
                p.expect_exact("xkcd #327: Exploits of a Mom https://xkcd.com/327/")
                p.expect(pexpect.EOF); p.close()
                print("after Enter: exit", p.exitstatus)
                p = start()
                p.send("explain 1190\r"); p.expect_exact("PAGER-WAITS")
                assert termios.tcgetattr(p.child_fd)[3] & termios.ICANON, "the terminal edits lines while the pager runs"
                p.sendeof()
                open(go, "w").close()
                p.expect(pexpect.EOF); p.close()
                print("while it runs: exit", p.exitstatus)
                """#
            let result = try await runPython(
                script, arguments: [sandbox.cli.executable.path, sandbox.db, sandbox.directory.path])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output == "after Enter: exit 0\nwhile it runs: exit 0\n", "\(result.output)")
        }
    }

    static let hasPexpect: Bool = (try? runPythonWaiting("import pexpect", arguments: []).status) == 0

    struct PythonResult {
        var status: Int32
        var output: String
    }

    /// Runs a python3 script with `arguments`, waiting on a thread of its own (``offTheTaskPool(_:)``).
    /// The script may call the functions of ``pexpectHelpers``.
    static func runPython(_ script: String, arguments: [String]) async throws -> PythonResult {
        try await offTheTaskPool { try runPythonWaiting(script, arguments: arguments) }
    }

    /// Defined for every script that ``runPython(_:arguments:)`` runs.
    ///
    /// `keys_are_read(p)`: waits until the line editor has the terminal, before a key that the
    /// terminal itself would otherwise take. libedit prints the prompt first and only then turns
    /// the terminal's line editing and echo off; in that gap the kernel keeps Ctrl-D as an
    /// end-of-file mark, which reaches libedit as a NUL byte, and swallows Ctrl-R. So a test that
    /// sends such a key as soon as the prompt shows loses it when the machine is busy. Echo off is
    /// the sign (pexpect reads the terminal's settings through the pty).
    static let pexpectHelpers = """
        def keys_are_read(p):
            p.waitnoecho()

        """

    static func runPythonWaiting(_ script: String, arguments: [String]) throws -> PythonResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", pexpectHelpers + script] + arguments
        // The scripts start the binary with this environment: the image wait of BinaryRunner's.
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["XKCD_SEARCH_IMAGE_TIMEOUT": BinaryRunner.imageTimeout]) { _, new in new }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-pty-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return PythonResult(
            status: process.terminationStatus, output: String(decoding: try Data(contentsOf: output), as: UTF8.self))
    }

    func runPython(_ script: String, arguments: [String]) async throws -> PythonResult {
        try await Self.runPython(script, arguments: arguments)
    }
}
