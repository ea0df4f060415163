import Foundation
import Testing
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Signals that end the REPL while its line editor holds the terminal (echo off, keys one at a
/// time) leave the terminal as it was before.
@Suite("the REPL's terminal after a signal")
struct REPLSignalTests {
    /// A REPL in a pseudo-terminal, at its prompt with a few keys typed, sent SIGTERM, then
    /// SIGHUP; the pty's mode is read from its master side at the prompt and after (pexpect's
    /// pseudo-terminal starts with icanon and echo on).
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func sigtermAndSighupRestoreTheTerminal() async throws {
        try await withBrowseSandbox { sandbox in
            let state = sandbox.directory.appendingPathComponent("state")
            let script = #"""
                import os, sys, signal, termios, pexpect
                binary, db, state = sys.argv[1:4]
                env = dict(os.environ, XDG_STATE_HOME=state, TERM="xterm", NO_COLOR="1", LANG="C.UTF-8")
                def mode(fd):
                    lflag = termios.tcgetattr(fd)[3]
                    return " ".join(("" if lflag & flag else "-") + name
                                    for name, flag in [("icanon", termios.ICANON), ("echo", termios.ECHO)])
                for name in ["SIGTERM", "SIGHUP"]:
                    p = pexpect.spawn(binary, ["repl", "--db", db, "--image", "never"], env=env, encoding="utf-8",
                                      timeout=600, dimensions=(40, 120))
                    p.expect_exact("xkcd> ")
                    p.send("sta"); p.expect_exact("sta")    # the line editor is reading keys
                    print(name, "at the prompt:", mode(p.child_fd))
                    p.kill(getattr(signal, name))
                    p.expect(pexpect.EOF)
                    print(name, "after:", mode(p.child_fd))
                    p.close()
                    print(name, "ended by signal", p.signalstatus)
                """#
            let result = try await REPLCommandTests.runPython(
                script, arguments: [sandbox.cli.executable.path, sandbox.db, state.path])
            #expect(result.status == 0, "\(result.output)")
            for (name, number) in [("SIGTERM", SIGTERM), ("SIGHUP", SIGHUP)] {
                // The test means something only if the editor had changed the mode.
                #expect(result.output.contains("\(name) at the prompt: -icanon -echo\n"), "\(result.output)")
                #expect(result.output.contains("\(name) after: icanon echo\n"), "\(result.output)")
                // Still ended by the signal, as the shell expects of a process sent it.
                #expect(result.output.contains("\(name) ended by signal \(number)\n"), "\(result.output)")
            }
        }
    }
}
