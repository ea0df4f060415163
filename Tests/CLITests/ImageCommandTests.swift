import Foundation
import Testing
import _XKCDTestSupport

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
    func eachPixelFormatIsDrawnAboveTheText(format: String, start: String, end: String) async throws {
        try await withImageSandbox { images in
            let show = try await images.show("show", "327", "--image-format", format, "--image-size", "80x40")
            #expect(show.status == 0, "\(show)")
            #expect(show.stdout.hasPrefix(start), "\(show.stdout.prefix(40).debugDescription)")
            let (image, text) = try #require(split(show.stdout))
            #expect(image.hasSuffix(end))
            #expect(text.hasPrefix(Self.heading))
            #expect(show.stderr.isEmpty, "\(show)")
        }
    }

    @Test func symbolArtFitsTheWidthAskedAndTheTextFollows() async throws {
        try await withImageSandbox { images in
            for columns in [30, 72] {
                let show = try await images.show("show", "2347", "--image-format", "symbols", "--image-size", "\(columns)x200")
                #expect(show.status == 0, "\(show)")
                let lines = show.stdoutLines
                let heading = try #require(lines.firstIndex { $0.hasPrefix("#2347  Dependency") }, "\(show)")
                let art = lines[..<heading]
                #expect(art.count > 10)
                #expect(art.allSatisfy { $0.unicodeScalars.count <= columns }, "wider than \(columns): \(art)")
                #expect(art.contains { $0.unicodeScalars.count == columns })
                #expect(!show.stdout.contains("\u{1B}["), "NO_COLOR: symbols without colour")
            }
            // Two screens at most: a 24-row terminal's default is 46 rows; a tall image is narrower.
            let tall = try await images.show("show", "2347", "--image-format", "symbols", "--image-size", "100x20")
            let art = tall.stdoutLines.prefix { !$0.hasPrefix("(shrunk") && !$0.hasPrefix("#2347") }
            #expect(art.count <= 20 && art.allSatisfy { $0.unicodeScalars.count < 100 }, "\(tall)")
            #expect(tall.stdout.contains("(shrunk to fit two screens: 'xkcd-search open 2347' shows it whole"), "\(tall)")
        }
    }

    @Test func symbolsAreInColourWithoutNO_COLOR() async throws {
        try await withImageSandbox { images in
            let show = try await images.show(
                "show", "1116", "--image-format", "symbols", "--image-size", "60x30",
                environment: ["NO_COLOR": "", "COLORTERM": "truecolor"])
            #expect(show.stdout.hasPrefix("\u{1B}["), "\(show.stdout.prefix(40).debugDescription)")
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
            #expect(first.stdout.hasPrefix("\u{1B}_G"), "\(first)")
            #expect(images.server.requestCount(forPath: Self.image327) == 1)
            let kept = images.imagesDirectory.appendingPathComponent("327-exploits_of_a_mom.png")
            #expect(try Data(contentsOf: kept) == Fixtures.image("exploits_of_a_mom.png"))
            let request = try #require(images.server.requests.first)
            #expect(request.userAgent?.hasPrefix("xkcd-search/") == true, "the indexer's User-Agent")

            let second = try await images.show("show", "327", "--image-format", "kitty")
            #expect(second.stdout == first.stdout)
            #expect(images.server.requestCount(forPath: Self.image327) == 1, "a second show makes no request")

            await images.server.stop()
            let offline = try await images.show("show", "327", "--image-format", "symbols")
            #expect(offline.status == 0 && offline.stderr.isEmpty, "\(offline)")
            #expect(offline.stdoutLines.firstIndex { $0 == Self.heading } ?? 0 > 5, "block art above: \(offline)")

            let stats = try await images.sandbox.json("stats", "--json")
            #expect(stats["images"] as? Int == 1)
            #expect(stats["imageBytes"] as? Int == 34748)
        }
    }

    @Test func withoutAnImageTheTextShowsWithOneLineSayingWhy() async throws {
        try await withImageSandbox { images in
            let server = images.server
            server.setFault(.body(try Fixtures.image("damaged.png")), forPath: FixtureServer.imagePath("password_strength.png"))
            server.setFault(.body(try Fixtures.image("oversized.png")), forPath: FixtureServer.imagePath("dependency.png"))
            let cases: [(comic: String, heading: String, reason: String)] = [
                ("1", "#1  Barrel - Part 1", "/comics/barrel_cropped_(1).jpg does not exist (HTTP 404)"),
                ("936", "#936  Password Strength", "the image is damaged"),
                ("2347", "#2347  Dependency", "the image is too large to decode (10000×10000 pixels; the limit is 40 million)"),
                ("1663", "#1663  Garden", "#1663 has no image of its own: it is an interactive comic, at https://xkcd.com/1663/"),
            ]
            for (comic, heading, reason) in cases {
                let show = try await images.show("show", comic)
                #expect(show.status == 0, "\(show)")
                #expect(show.stdout.hasPrefix(heading), "the text still shows: \(show)")
                #expect(show.stderrLines.count == 1 && show.stderr.hasPrefix("no image: "), "\(show)")
                #expect(show.stderr.contains(reason), "\(show)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: images.imagesDirectory.path).isEmpty,
                    "nothing damaged or refused is kept")

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
            #expect(shown.stderrLines == ["#327 is an interactive comic: this is its still image; 'xkcd-search open 327' plays it"], "\(shown)")
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
                "index", "--db", images.sandbox.db, "--mirror", Fixtures.corpusURL.path, "--images", "--image-url", images.base,
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
            let kept = try FileManager.default.contentsOfDirectory(atPath: images.imagesDirectory.path).filter { !$0.hasPrefix(".") }
            #expect(kept == ["327-exploits_of_a_mom.png"], "\(kept)")
            #expect(server.requestCount(forPath: Self.image327) == 1)

            let second = try await images.sandbox.cli.run(arguments)
            #expect(second.status == 0, "\(second)")
            #expect(server.requestCount(forPath: Self.image327) == 1, "what was kept is not fetched again")
            let all = ["327-exploits_of_a_mom.png", "936-password_strength.png", "1116-traffic_lights.gif", "2347-dependency.png"]
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: images.imagesDirectory.path)) == Set(all))
            let summary = try #require(second.stdoutLines.last { $0.hasPrefix("images: ") }, "\(second)")
            #expect(summary.hasPrefix("images: 3 fetched, 1 already kept, \(Fixtures.comicIDs.count - 4) without one; 4 kept"), "\(summary)")

            let third = try await images.sandbox.cli.run(arguments)
            #expect(third.stdout.contains("images: 0 fetched, 4 already kept"), "\(third)")
            #expect(server.peakConcurrentRequests(for: .images) == 1, "the per-host limit holds")
            let stats = try await images.sandbox.run("stats")
            #expect(stats.stdout.contains("images kept:   4 ("), "\(stats)")
        }
    }

    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func theREPLDrawsTheComicItShowsInBlockArt() async throws {
        try await withImageSandbox { images in
            let script = #"""
                import os, sys, pexpect
                binary, db, base, cache = sys.argv[1:5]
                # A pager that keeps what it was given and shows it: the page is taller than the
                # screen, and the image must stay out of it.
                pager, got = os.path.join(cache, "pager"), os.path.join(cache, "pager.got")
                os.makedirs(cache, exist_ok=True)
                with open(pager, "w") as f: f.write("#!/bin/sh\ntee '%s'\n" % got)
                os.chmod(pager, 0o755)
                env = dict(os.environ, XDG_CACHE_HOME=cache, TERM="xterm-256color", NO_COLOR="1", LANG="C.UTF-8", PAGER=pager)
                env.pop("COLORTERM", None); env.pop("TERM_PROGRAM", None); env.pop("KITTY_WINDOW_ID", None)
                env.pop("XKCD_SEARCH_PAGER", None)
                p = pexpect.spawn(binary, ["repl", "--db", db, "--image-url", base], env=env, encoding="utf-8",
                                  timeout=600, dimensions=(30, 70))
                p.expect_exact("xkcd> ")
                p.send("327\r")
                p.expect("[\u2580-\u259f\U0001fb00-\U0001fb3b]{5}")    # a run of block or sextant symbols
                p.expect_exact("#327  Exploits of a Mom"); p.expect_exact("xkcd> ")
                text = open(got).read()
                assert text.startswith("#327  Exploits of a Mom") and "\u2580" not in text and "\x1b" not in text, repr(text[:300])
                p.send("show 1663\r")
                p.expect_exact("no image: #1663 has no image of its own"); p.expect_exact("#1663  Garden"); p.expect_exact("xkcd> ")
                p.sendeof(); p.expect(pexpect.EOF); p.close()
                print("exit", p.exitstatus)
                """#
            let result = try await REPLCommandTests.runPython(
                script, arguments: [
                    images.sandbox.cli.executable.path, images.sandbox.db, images.base,
                    images.sandbox.directory.appendingPathComponent("cache").path,
                ])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.hasSuffix("exit 0\n"), "\(result.output)")
            #expect(images.server.requestCount(forPath: Self.image327) == 1)
            #expect(FileManager.default.fileExists(atPath: images.imagesDirectory.appendingPathComponent("327-exploits_of_a_mom.png").path))
        }
    }

    /// The drawn image and the text after it: split at the line that starts the page.
    private func split(_ stdout: String) -> (image: String, text: String)? {
        guard let range = stdout.range(of: "\n#") else { return nil }
        return (String(stdout[..<range.lowerBound]), String(stdout[stdout.index(after: range.lowerBound)...]))
    }
}
