import Foundation
import Testing
import _XKCDTestSupport

/// Terminals where the pager cannot run: a pager that does not exist, a dumb terminal.
@Suite("without a pager that can run")
struct PagerFallbackTests {
    /// On a pseudo-terminal (pexpect): a `$PAGER` that is not there prints the output as it is,
    /// with one line saying so; `TERM=dumb` starts no `less` (a recording `less` first in PATH),
    /// where `TERM=xterm` does.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func aMissingPagerOrADumbTerminalPrintsPlainly() async throws {
        try await withBrowseSandbox { sandbox in
            let script = #"""
                import os, sys, pexpect
                binary, db, directory = sys.argv[1:4]
                bin = os.path.join(directory, "bin"); os.mkdir(bin)
                ran = os.path.join(directory, "less-ran")
                with open(os.path.join(bin, "less"), "w") as f: f.write("#!/bin/sh\ntouch '%s'\ncat\n" % ran)
                os.chmod(os.path.join(bin, "less"), 0o755)
                base = dict(os.environ, NO_COLOR="1", PATH=bin + ":" + os.environ["PATH"])
                for name in ("XKCD_SEARCH_PAGER", "PAGER"): base.pop(name, None)
                def run(**variables):
                    p = pexpect.spawn(binary, ["show", "327", "--image", "never", "--db", db], env=dict(base, **variables),
                                      encoding="utf-8", timeout=600)
                    p.expect(pexpect.EOF); p.close()
                    return p.exitstatus, p.before.replace("\r\n", "\n")
                for pager in ("no-such-pager-here -R", "/nonexistent/pager"):
                    status, screen = run(TERM="xterm", PAGER=pager)
                    name = pager.split(" ")[0]
                    assert status == 0 and "Title text" in screen, (pager, status, screen)
                    notes = [line for line in screen.split("\n") if "pager" in line]
                    assert notes == ["the pager '%s' was not found; printing without it" % name], (pager, notes)
                status, screen = run(TERM="dumb")
                assert status == 0 and "Title text" in screen and not os.path.exists(ran), (status, screen)
                status, screen = run(TERM="xterm")
                assert status == 0 and os.path.exists(ran), "the control: less runs on a terminal"
                print("ok")
                """#
            let result = try await REPLCommandTests.runPython(
                script, arguments: [sandbox.cli.executable.path, sandbox.db, sandbox.directory.path])
            #expect(result.status == 0 && result.output.hasSuffix("ok\n"), "\(result.output)")
        }
    }
}
