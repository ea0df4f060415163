import Foundation
import Testing
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Images through the built binaries: drawn above the text, fetched from the fixture server in
/// imgs.xkcd.com's shape, kept in the sandbox's XDG cache, and one line when there is none.
// Serialized: each test runs several processes, and the suite runs beside others whose indexing
// runs have a time limit.
@Suite("comic images: show, the cache, index --images and failures", .serialized)
struct ImageCommandTests {
    /// A browse sandbox with the fixture server for images.
    struct ImageSandbox {
        let sandbox: BrowseSandbox
        let server: FixtureServer
        let base: String

        var imagesDirectory: URL { sandbox.directory.appendingPathComponent("cache/xkcd-search/images") }

        /// `show`-like commands with the image drawn whatever stdout is, from the fixture server.
        func show(_ arguments: String..., environment: [String: String] = [:]) async throws -> BinaryRunner.Output {
            try await sandbox.cli.run(
                arguments + ["--db", sandbox.db, "--image", "always", "--image-url", base], environment: environment)
        }
    }

    func withImageSandbox(_ body: (ImageSandbox) async throws -> Void) async throws {
        try await withBrowseSandbox { sandbox in
            let server = FixtureServer()
            let base = try await server.start()
            try await body(ImageSandbox(sandbox: sandbox, server: server, base: base.absoluteString))
            await server.stop()
        }
    }

    static let heading = "#327  Exploits of a Mom  (2007-10-10)"
    static let image327 = FixtureServer.imagePath("exploits_of_a_mom.png")

    @Test(arguments: [
        ("kitty", "\u{1B}_G", "\u{1B}\\"), ("iterm", "\u{1B}]1337;File=", "\u{07}"), ("sixel", "\u{1B}P", "\u{1B}\\"),
    ])
    func eachPixelFormatIsDrawnWithTheText(format: String, start: String, end: String) async throws {
        try await withImageSandbox { images in
            // Fetched now: the text at once, the image below it when it has come.
            let fetched = try await images.show("show", "327", "--image-format", format, "--image-size", "80x40")
            #expect(fetched.status == 0 && fetched.stderr.isEmpty, "\(fetched)")
            let credit = try #require(fetched.stdout.range(of: BrowseCommandTests.credit), "\(fetched)")
            #expect(fetched.stdout.hasPrefix(Self.heading))
            #expect(
                fetched.stdout[credit.upperBound...].hasPrefix("\n" + start),
                "\(fetched.stdout.suffix(80).debugDescription)")
            // Kept: the heading, the image, then the rest of the text.
            let show = try await images.show("show", "327", "--image-format", format, "--image-size", "80x40")
            #expect(show.status == 0 && show.stderr.isEmpty, "\(show)")
            let (image, text) = try #require(keptPage(show.stdout))
            #expect(image.hasPrefix(start) && image.hasSuffix(end), "\(image.prefix(40).debugDescription)")
            #expect(text.hasPrefix("Title text"), "\(text.prefix(40))")
        }
    }

    @Test func symbolArtFitsTheWidthAskedAndTheTextFollows() async throws {
        try await withImageSandbox { images in
            for columns in [30, 72] {
                let show = try await images.show(
                    "show", "2347", "--image-format", "symbols", "--image-size", "\(columns)x200")
                #expect(show.status == 0, "\(show)")
                #expect(show.stdout.hasPrefix("#2347  Dependency"), "\(show)")
                let art = show.stdoutLines.filter(Self.isBlockArt)
                #expect(art.count > 10)
                #expect(art.allSatisfy { $0.unicodeScalars.count <= columns }, "wider than \(columns): \(art)")
                #expect(art.contains { $0.unicodeScalars.count == columns })
                #expect(!show.stdout.contains("\u{1B}["), "NO_COLOR: symbols without colour")
            }
            // The room asked for: a tall image is narrower, and nothing says so.
            let tall = try await images.show("show", "2347", "--image-format", "symbols", "--image-size", "100x20")
            let art = tall.stdoutLines.filter(Self.isBlockArt)
            #expect(art.count <= 20 && art.allSatisfy { $0.unicodeScalars.count < 100 }, "\(tall)")
            #expect(!tall.stdout.contains("(shrunk"), "\(tall)")
            // One screen by default, with the heading: 22 rows of 24 off a terminal; shrunk, and said.
            let fitted = try await images.show("show", "2347", "--image-format", "symbols")
            #expect(fitted.stdoutLines.filter(Self.isBlockArt).count <= 22, "\(fitted)")
            #expect(
                fitted.stdout.contains("(shrunk to fit the screen: 'xkcd-search open 2347' shows it whole"), "\(fitted)"
            )
        }
    }

    @Test func symbolsAreInColourWithoutNO_COLOR() async throws {
        try await withImageSandbox { images in
            let show = try await images.show(
                "show", "1116", "--image-format", "symbols", "--image-size", "60x30",
                environment: ["NO_COLOR": "", "COLORTERM": "truecolor"])
            #expect(show.stdout.contains("\u{1B}[38;2;"), "GIF's first frame in 24-bit colour")
        }
    }

    @Test func aPipeGetsNoImageUnlessAsked() async throws {
        try await withImageSandbox { images in
            // `random` last: the comic it draws may be the latest, after which `next` has nothing.
            for command in [["show", "327"], ["latest"], ["prev"], ["next"], ["random"]] {
                let output = try await images.sandbox.cli.run(
                    command + ["--db", images.sandbox.db, "--image-url", images.base])
                #expect(output.status == 0, "\(output)")
                #expect(!output.stdout.contains("\u{1B}"))
            }
            #expect(images.server.requests.isEmpty, "no image was fetched for a pipe")
            let never = try await images.sandbox.run("show", "327", "--image", "never", "--image-url", images.base)
            #expect(never.stdout.hasPrefix(Self.heading))
            #expect(images.server.requests.isEmpty)
        }
    }

    @Test func theImageIsFetchedOnceAndShownAgainOffline() async throws {
        try await withImageSandbox { images in
            let first = try await images.show("show", "327", "--image-format", "kitty")
            #expect(first.stdout.hasPrefix(Self.heading) && first.stdout.contains("\u{1B}_G"), "\(first)")
            #expect(images.server.requestCount(forPath: Self.image327) == 1)
            let kept = images.imagesDirectory.appendingPathComponent("327-exploits_of_a_mom.png")
            #expect(try Data(contentsOf: kept) == Fixtures.image("exploits_of_a_mom.png"))
            let request = try #require(images.server.requests.first)
            #expect(request.userAgent?.hasPrefix("xkcd-search/") == true, "the indexer's User-Agent")

            let second = try await images.show("show", "327", "--image-format", "kitty")
            #expect(try #require(keptPage(second.stdout)).image.hasPrefix("\u{1B}_G"), "\(second)")
            #expect(images.server.requestCount(forPath: Self.image327) == 1, "a second show makes no request")

            await images.server.stop()
            let offline = try await images.show("show", "327", "--image-format", "symbols")
            #expect(offline.status == 0 && offline.stderr.isEmpty, "\(offline)")
            #expect(offline.stdoutLines.first == Self.heading, "\(offline)")
            #expect(
                offline.stdoutLines.dropFirst().prefix(5).allSatisfy(Self.isBlockArt),
                "block art below the heading: \(offline)")

            let stats = try await images.sandbox.json("stats", "--json")
            #expect(stats["images"] as? Int == 1)
            #expect(stats["imageBytes"] as? Int == 34748)
        }
    }

    @Test func withoutAnImageTheTextShowsWithOneLineSayingWhy() async throws {
        try await withImageSandbox { images in
            let server = images.server
            server.setFault(
                .body(try Fixtures.image("damaged.png")), forPath: FixtureServer.imagePath("password_strength.png"))
            server.setFault(
                .body(try Fixtures.image("oversized.png")), forPath: FixtureServer.imagePath("dependency.png"))
            let cases: [(comic: String, heading: String, reason: String)] = [
                ("1", "#1  Barrel - Part 1", "/comics/barrel_cropped_(1).jpg does not exist (HTTP 404)"),
                ("936", "#936  Password Strength", "the image is damaged"),
                (
                    "2347", "#2347  Dependency",
                    "the image is too large to decode (10000×10000 pixels; the limit is 40 million)"
                ),
                (
                    "1663", "#1663  Garden",
                    "#1663 has no image of its own: it is an interactive comic, at https://xkcd.com/1663/"
                ),
            ]
            for (comic, heading, reason) in cases {
                let show = try await images.show("show", comic)
                #expect(show.status == 0, "\(show)")
                #expect(show.stdout.hasPrefix(heading), "the text still shows: \(show)")
                #expect(show.stderrLines.count == 1 && show.stderr.hasPrefix("no image: "), "\(show)")
                #expect(show.stderr.contains(reason), "\(show)")
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: images.imagesDirectory.path) == ["missing"],
                "nothing damaged or refused is kept, only remembered as missing")

            await server.stop()  // nothing listens on the port any more
            let offline = try await images.show("show", "327")
            #expect(offline.status == 0 && offline.stdout.hasPrefix(Self.heading), "\(offline)")
            #expect(offline.stderrLines.count == 1, "\(offline)")
            #expect(offline.stderr.contains("no image: could not connect to 127.0.0.1"), "\(offline)")
        }
    }

    /// An interactive comic's image is its still: drawn, with one line saying where the comic is.
    /// #327 is filed here under the wiki's interactive comics, as #1110 (Click and Drag) is.
    @Test func anInteractiveComicsStillSaysSo() async throws {
        try await withImageSandbox { images in
            let plain = try await images.show("show", "327", "--image-format", "symbols")
            #expect(!plain.stderr.contains("interactive"), "\(plain)")
            let filed = try await runTool([
                "sqlite3", images.sandbox.db,
                "UPDATE explanation SET categories = categories || char(10) || 'Interactive comics' WHERE comicID = 327",
            ])
            #expect(filed.status == 0, "\(filed.output)")
            let shown = try await images.show("show", "327", "--image-format", "symbols")
            #expect(shown.status == 0, "\(shown)")
            #expect(
                shown.stderrLines == [
                    "#327 is an interactive comic: this is its still image; 'xkcd-search open 327' plays it"
                ], "\(shown)")
            #expect(shown.stdout.contains("Exploits of a Mom"))
        }
    }

    @Test func indexImagesFetchesWhatIsMissingAndResumesAfterAKill() async throws {
        try await withImageSandbox { images in
            let server = images.server
            // The first image the server has is answered, what comes after held: the run cannot
            // finish before the kill.
            server.holdAnswers(afterRequestFor: Self.image327)
            let arguments = [
                "index", "--db", images.sandbox.db, "--mirror", Fixtures.corpusURL.path, "--images", "--image-url",
                images.base,
                "--concurrency", "1", "--timeout", "600",
            ]
            let child = try images.sandbox.cli.launch(arguments)
            try await waitUntil("the first image kept", stopIf: { !child.isRunning }) {
                // Not the temporary file an image is written to before it is renamed.
                ((try? FileManager.default.contentsOfDirectory(atPath: images.imagesDirectory.path)) ?? [])
                    .contains { !$0.hasPrefix(".") }
            }
            #expect(child.isRunning, "the run ended while the server held its answers")
            child.kill(SIGKILL)
            _ = await child.wait()
            server.releaseAnswers()
            let kept = try FileManager.default.contentsOfDirectory(atPath: images.imagesDirectory.path).filter {
                !$0.hasPrefix(".")
            }
            #expect(kept == ["327-exploits_of_a_mom.png"], "\(kept)")
            #expect(server.requestCount(forPath: Self.image327) == 1)

            let second = try await images.sandbox.cli.run(arguments)
            #expect(second.status == 0, "\(second)")
            #expect(server.requestCount(forPath: Self.image327) == 1, "what was kept is not fetched again")
            let all = [
                "327-exploits_of_a_mom.png", "936-password_strength.png", "1116-traffic_lights.gif",
                "2347-dependency.png",
            ]
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: images.imagesDirectory.path)) == Set(all))
            let summary = try #require(second.stdoutLines.last { $0.hasPrefix("images: ") }, "\(second)")
            #expect(
                summary.hasPrefix(
                    "images: 3 fetched, 1 already kept, \(Fixtures.comicIDs.count - 4) without one; 4 kept"),
                "\(summary)")

            let third = try await images.sandbox.cli.run(arguments)
            #expect(third.stdout.contains("images: 0 fetched, 4 already kept"), "\(third)")
            #expect(server.peakConcurrentRequests(for: .images) == 1, "the per-host limit holds")
            let stats = try await images.sandbox.run("stats")
            #expect(stats.stdout.contains("images kept:   4 ("), "\(stats)")
        }
    }

    /// The REPL pages the image with its text, as the command line does: the first time the text
    /// with the image below it, once kept the heading, the image fitted to the screen, the text.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func theREPLDrawsTheComicItShowsInBlockArt() async throws {
        try await withImageSandbox { images in
            let script = #"""
                import os, sys, pexpect
                binary, db, base, cache = sys.argv[1:5]
                # A pager that keeps what it was given and shows it: the page is taller than the screen.
                pager, got = os.path.join(cache, "pager"), os.path.join(cache, "pager.got")
                os.makedirs(cache, exist_ok=True)
                with open(pager, "w") as f: f.write("#!/bin/sh\ntee '%s'\n" % got)
                os.chmod(pager, 0o755)
                env = dict(os.environ, XDG_CACHE_HOME=cache, TERM="xterm-256color", NO_COLOR="1", LANG="C.UTF-8", PAGER=pager)
                env.pop("COLORTERM", None); env.pop("TERM_PROGRAM", None); env.pop("KITTY_WINDOW_ID", None)
                env.pop("XKCD_SEARCH_PAGER", None)
                p = pexpect.spawn(binary, ["repl", "--db", db, "--image-url", base], env=env, encoding="utf-8",
                                  timeout=600, dimensions=(30, 70))
                blocks = lambda line: any("\u2580" <= c <= "\u259f" or "\U0001fb00" <= c <= "\U0001fb3b" for c in line)
                p.expect_exact("xkcd> ")
                p.send("327\r")
                p.expect_exact("#327  Exploits of a Mom")
                p.expect("[\u2580-\u259f\U0001fb00-\U0001fb3b]{5}")    # a run of block or sextant symbols
                p.expect_exact("xkcd> ")
                lines = open(got).read().split("\n")
                credit = next(i for i, line in enumerate(lines) if "(CC BY-SA 3.0)" in line)
                assert lines[0] == "#327  Exploits of a Mom  (2007-10-10)" and any(map(blocks, lines[credit:])), lines[:3]
                assert not any(map(blocks, lines[:credit])) and "\x1b" not in "".join(lines), lines[:5]
                p.send("327\r")
                p.expect_exact("#327  Exploits of a Mom"); p.expect_exact("xkcd> ")
                lines = open(got).read().split("\n")
                art = [line for line in lines if blocks(line)]
                assert lines[0].startswith("#327  Exploits") and lines[1:1 + len(art)] == art and len(art) <= 28, lines[:3]
                assert max(len(line) for line in art) <= 70, max(len(line) for line in art)
                p.send("show 1663\r")
                # The note (the image fetcher's, on stderr) and the page (the pager's) come from two
                # processes, in either order; both before the next prompt.
                seen = set()
                while len(seen) < 2:
                    seen.add(p.expect_exact(["no image: #1663 has no image of its own", "#1663  Garden"]))
                p.expect_exact("xkcd> ")
                keys_are_read(p); p.sendeof(); p.expect(pexpect.EOF); p.close()
                print("exit", p.exitstatus)
                """#
            let result = try await REPLCommandTests.runPython(
                script,
                arguments: [
                    images.sandbox.cli.executable.path, images.sandbox.db, images.base,
                    images.sandbox.directory.appendingPathComponent("cache").path,
                ])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.hasSuffix("exit 0\n"), "\(result.output)")
            #expect(images.server.requestCount(forPath: Self.image327) == 1)
            #expect(
                FileManager.default.fileExists(
                    atPath: images.imagesDirectory.appendingPathComponent("327-exploits_of_a_mom.png").path))
        }
    }

    /// A kept image and its page read as one: through the pager, the heading, the image fitted
    /// to one screen with it, then the text; not the image drawn before the pager, which then
    /// covers it. The note about shrinking comes only when the size was not asked for.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func aKeptImageAndItsTitleArePagedAsOnePage() async throws {
        try await withImageSandbox { images in
            let fetched = try await images.show("show", "2347", "--image-format", "symbols")
            #expect(fetched.status == 0, "\(fetched)")
            let script = #"""
                import os, sys, pexpect
                binary, db, base, home = sys.argv[1:5]
                pager = os.path.join(home, "pager")
                with open(pager, "w") as f: f.write("#!/bin/sh\ncat > '%s.got'\n" % pager)
                os.chmod(pager, 0o755)
                env = dict(os.environ, HOME=home, TERM="xterm-256color",
                           NO_COLOR="1", LANG="C.UTF-8", PAGER=pager)
                for name in ("XKCD_SEARCH_PAGER", "COLUMNS", "COLORTERM", "TERM_PROGRAM", "KITTY_WINDOW_ID"): env.pop(name, None)
                env.update({"XDG_%s_HOME" % kind.upper(): os.path.join(home, kind) for kind in ("cache", "data", "state", "config")})
                def paged(*arguments):
                    if os.path.exists(pager + ".got"): os.remove(pager + ".got")
                    p = pexpect.spawn(binary, ["show", "2347", "--db", db, "--image-url", base] + list(arguments),
                                      env=env, encoding="utf-8", timeout=600, dimensions=(30, 100))
                    p.expect(pexpect.EOF); p.close()
                    assert p.exitstatus == 0, (p.exitstatus, p.before)
                    assert "\u2580" not in p.before and "\u2584" not in p.before, "drawn outside the pager: %r" % p.before[:300]
                    return open(pager + ".got").read().split("\n")
                blocks = lambda line: any("\u2580" <= c <= "\u259f" or "\U0001fb00" <= c <= "\U0001fb3b" for c in line)
                lines = paged()
                assert lines[0].startswith("#2347  Dependency  ("), lines[:3]
                art = [line for line in lines[1:] if blocks(line)]
                assert len(art) > 10 and lines[1:1 + len(art)] == art, lines[:4]
                assert len(art) <= 28 and max(len(line) for line in art) <= 100, (len(art), max(map(len, art)))
                rest = lines[1 + len(art):]
                assert rest[0].startswith("(shrunk to fit the screen: 'xkcd-search open 2347'"), rest[:2]
                assert any(line.startswith("Title text") for line in rest), rest[:5]
                asked = paged("--image-size", "60x20")
                art = [line for line in asked if blocks(line)]
                assert 0 < len(art) <= 20 and not any(line.startswith("(shrunk") for line in asked), asked[:25]
                print("ok")
                """#
            let result = try await REPLCommandTests.runPython(
                script,
                arguments: [
                    images.sandbox.cli.executable.path, images.sandbox.db, images.base, images.sandbox.directory.path,
                ])
            #expect(result.status == 0 && result.output.hasSuffix("ok\n"), "\(result.output)")
            #expect(images.server.requestCount(forPath: FixtureServer.imagePath("dependency.png")) == 1)
        }
    }

    /// Offline: a refused connection and a host that does not exist are not asked again within
    /// the run (one try, no backoff), and the comic is remembered as missing: the next `show`
    /// prints its text without trying, `-v` says why, and `stats` counts it.
    @Test func offlineTheFailureIsNotRetriedAndIsRemembered() async throws {
        try await withImageSandbox { images in
            await images.server.stop()  // nothing listens on the port any more
            // A label of 64 characters is refused by the resolver itself: no query leaves.
            let unknownHost = "http://" + String(repeating: "a", count: 64) + ".invalid"
            let cases = [
                ("327", Self.heading, images.base, "(connection refused) after 1 try"),
                ("936", "#936  Password Strength", unknownHost, "(host not found) after 1 try"),
            ]
            for (comic, heading, base, reason) in cases {
                let arguments = ["show", comic, "--db", images.sandbox.db, "--image", "always", "--image-url", base]
                let first = try await images.sandbox.cli.run(arguments)
                #expect(first.status == 0 && first.stdout.hasPrefix(heading), "\(first)")
                #expect(
                    first.stderrLines.count == 1 && first.stderr.hasPrefix("no image: could not connect to "),
                    "\(first)")
                #expect(first.stderr.contains(reason), "\(first)")

                let again = try await images.sandbox.cli.run(arguments)
                #expect(again.status == 0 && again.stdout.hasPrefix(heading), "\(again)")
                #expect(again.stderr.isEmpty, "remembered: nothing tried, nothing said: \(again)")
                let verbose = try await images.sandbox.cli.run(arguments + ["-v"])
                #expect(verbose.stdout.hasPrefix(heading), "\(verbose)")
                #expect(verbose.stderr.contains("no image: could not connect to "), "\(verbose)")
                #expect(verbose.stderr.contains("asked again after "), "the remembered state is used: \(verbose)")
            }
            let stats = try await images.sandbox.run("stats")
            #expect(stats.stdout.contains("; 2 comics' images could not be fetched lately"), "\(stats)")
            #expect(try await images.sandbox.json("stats", "--json")["imagesMissing"] as? Int == 2)
        }
    }

    /// An image server that accepts the connection and never answers: the text comes first, the
    /// image is given up within seconds (the hang guard is minutes), and the next `show` does not
    /// ask again.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func aServerThatNeverAnswersDoesNotHoldUpTheText() async throws {
        try await withImageSandbox { images in
            images.server.setFault(.stall(seconds: 3600), forPath: Self.image327)
            let script = #"""
                import os, sys, pexpect
                binary, db, base, home = sys.argv[1:5]
                env = dict(os.environ, HOME=home, TERM="xterm", NO_COLOR="1")
                env.update({"XDG_%s_HOME" % kind.upper(): os.path.join(home, kind) for kind in ("cache", "data", "state", "config")})
                env.pop("XKCD_SEARCH_IMAGE_TIMEOUT", None)    # the limit under test: a person's
                p = pexpect.spawn(binary, ["show", "327", "--db", db, "--image-url", base, "--no-pager"], env=env,
                                  encoding="utf-8", timeout=600, dimensions=(30, 100))
                p.expect(pexpect.EOF); p.close()
                screen = p.before
                assert p.exitstatus == 0, (p.exitstatus, screen)
                text, failure = screen.find("#327  Exploits of a Mom"), screen.find("no image: timed out fetching")
                assert 0 <= text < failure, "the text first, then one line: %r" % screen
                print("ok")
                """#
            let arguments = [
                images.sandbox.cli.executable.path, images.sandbox.db, images.base, images.sandbox.directory.path,
            ]
            let result = try await REPLCommandTests.runPython(script, arguments: arguments)
            #expect(result.status == 0 && result.output.hasSuffix("ok\n"), "\(result.output)")
            let asked = images.server.requestCount(forPath: Self.image327)
            #expect(asked >= 1)
            let again = try await images.show("show", "327", "--image-format", "symbols")
            #expect(again.status == 0 && again.stdout.hasPrefix(Self.heading) && again.stderr.isEmpty, "\(again)")
            #expect(
                images.server.requestCount(forPath: Self.image327) == asked, "remembered as missing: not asked again")
        }
    }

    /// A kept image's page: the heading, the image, then the rest of the text from its title
    /// text on.
    private func keptPage(_ stdout: String) -> (image: String, text: String)? {
        guard stdout.hasPrefix(Self.heading + "\n"), let text = stdout.range(of: "\n\nTitle text") else { return nil }
        let image = stdout[stdout.index(stdout.startIndex, offsetBy: Self.heading.count + 1)..<text.lowerBound]
        return (String(image), String(stdout[stdout.index(text.lowerBound, offsetBy: 2)...]))
    }

    /// A line of block or sextant symbols.
    static func isBlockArt(_ line: String) -> Bool {
        line.unicodeScalars.contains { (0x2580...0x259F).contains($0.value) || (0x1FB00...0x1FB3B).contains($0.value) }
    }
}
