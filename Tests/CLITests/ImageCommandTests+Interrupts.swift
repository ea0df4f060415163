import Foundation
import Testing
import _XKCDTestSupport

/// `index --images` stopped by Ctrl-C at each stage, and a host that refuses every connection.
extension ImageCommandTests {
    /// Ctrl-C in each step of `index --images` stops the run with one line and exit 130, and
    /// keeps what was stored; the next run goes on from there. (The embedding step's Ctrl-C is
    /// the same cancellation; `--no-embed` here.)
    @Test func ctrlCStopsIndexImagesWhileFetchingComics() async throws {
        try await withServedIndex(latest: 327) { served in
            let (server, cli, db) = (served.server, served.cli, served.db)
            let base = try #require(server.baseURL).absoluteString
            let arguments =
                ["index", "--db", db, "--concurrency", "1", "--timeout", "600", "--images", "--image-url", base]
                + served.urls
            // Six answers, then none until Ctrl-C: the run is still fetching comics when it comes.
            server.holdAnswers(afterRequests: 6)
            let child = try cli.launch(arguments)
            let stopped = try await interrupt(child, when: { server.requestLog.count > 6 })
            server.releaseAnswers()
            #expect(stopped.stderr.contains("interrupted: the index keeps its"), "\(stopped)")
            #expect(!server.requests.contains { $0.site == .images }, "stopped before the images")
            let next = try await cli.run(arguments)
            #expect(next.status == 0 && next.stdout.contains("images: "), "\(next)")
        }
    }

    /// Ctrl-C while the comics are embedded (the progress bar on a terminal says when). The run
    /// waits at the embedding gate (a FIFO) with its first progress drawn and nothing embedded
    /// until the test closes it after its Ctrl-C: before, a fast machine could embed the 33
    /// fixture comics before the Ctrl-C landed.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func ctrlCStopsIndexImagesWhileEmbedding() async throws {
        try await withImageSandbox { images in
            let script = #"""
                import os, sys, pexpect
                binary, db, corpus, base, home = sys.argv[1:6]
                gate = os.path.join(home, "embedding-gate")
                os.mkfifo(gate, 0o600)
                env = dict(os.environ, HOME=home, TERM="xterm", NO_COLOR="1", XKCD_SEARCH_TEST_EMBEDDING_GATE=gate)
                env.update({"XDG_%s_HOME" % kind.upper(): os.path.join(home, kind) for kind in ("cache", "data", "state", "config")})
                p = pexpect.spawn(binary, ["index", "--db", db, "--mirror", corpus, "--images", "--image-url", base],
                                  env=env, encoding="utf-8", timeout=600, dimensions=(24, 100))
                p.expect_exact("embedding ")
                p.sendintr()
                # Opening waits for the run to reach the gate; closing lets it go on, interrupted.
                os.close(os.open(gate, os.O_WRONLY))
                p.expect(pexpect.EOF); p.close()
                assert p.exitstatus == 130, (p.exitstatus, p.signalstatus, p.before)
                assert "interrupted: the index keeps its" in p.before, p.before
                print("ok")
                """#
            let result = try await REPLCommandTests.runPython(
                script,
                arguments: [
                    // A new index: every comic is embedded.
                    images.sandbox.cli.executable.path,
                    images.sandbox.directory.appendingPathComponent("new.sqlite").path,
                    Fixtures.corpusURL.path, images.base, images.sandbox.directory.path,
                ])
            #expect(result.status == 0 && result.output.hasSuffix("ok\n"), "\(result.output)")
            #expect(images.server.requests.isEmpty, "stopped before the images")
        }
    }

    @Test func ctrlCStopsIndexImagesWhileFetchingImages() async throws {
        try await withImageSandbox { images in
            // No image is answered until Ctrl-C: the run is still fetching images when it comes.
            images.server.holdAnswers()
            let arguments = [
                "index", "--db", images.sandbox.db, "--mirror", Fixtures.corpusURL.path, "--images", "--image-url",
                images.base,
                "--concurrency", "1", "--timeout", "600",
            ]
            let child = try images.sandbox.cli.launch(arguments)
            let stopped = try await interrupt(child, when: { !images.server.requests.isEmpty })
            images.server.releaseAnswers()
            #expect(stopped.stdout.hasPrefix("indexed up to #"), "the index step ended first: \(stopped)")
            #expect(stopped.stderr.contains("'xkcd-search index --images' fetches the rest"), "\(stopped)")
            let asked = images.server.requests.count
            #expect(asked < Fixtures.comicIDs.count, "stopped before the end: \(asked)")
            let next = try await images.sandbox.cli.run(arguments)
            #expect(next.status == 0 && next.stdout.contains("images: "), "\(next)")
        }
    }

    /// Sends Ctrl-C's SIGINT once `reached` is true, and expects the run to stop with one line, exit 130.
    func interrupt(
        _ child: BinaryRunner.Child, when reached: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> BinaryRunner.Output {
        try await waitUntil("the step to interrupt", stopIf: { !child.isRunning }, { reached() })
        #expect(child.isRunning, "the run finished before Ctrl-C", sourceLocation: sourceLocation)
        child.kill(SIGINT)
        let stopped = await child.wait()
        #expect(stopped.status == 130 && stopped.signal == nil, "\(stopped)", sourceLocation: sourceLocation)
        #expect(
            stopped.stderrLines.count == 1 && stopped.stderr.hasPrefix("interrupted: "), "\(stopped)",
            sourceLocation: sourceLocation)
        return stopped
    }

    /// A host that refuses every connection stops `index --images` after a run of the same
    /// failure, with one line saying why, exit 3; not a failure per image for all of them.
    @Test func indexImagesGivesUpOnAHostThatRefusesEveryConnection() async throws {
        try await withImageSandbox { images in
            let base = images.base
            await images.server.stop()
            let run = try await images.sandbox.cli.run([
                "index", "--db", images.sandbox.db, "--mirror", Fixtures.corpusURL.path, "--images", "--image-url",
                base,
                "--concurrency", "2",
            ])
            #expect(run.status == 3, "\(run)")
            let port = try #require(URL(string: base)?.port)
            #expect(run.stderrLines.count == 1, "\(run)")
            #expect(
                run.stderr.hasPrefix(
                    "images: stopped after 10 images in a row failed: could not connect to 127.0.0.1:\(port) (connection refused); 0 fetched"
                ),
                "\(run)")
            #expect(run.stderr.hasSuffix("'xkcd-search index --images' tries again\n"), "\(run)")
        }
    }
}
