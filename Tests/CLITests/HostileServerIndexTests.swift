import Foundation
import Testing
import _XKCDTestSupport

/// `index` against a server that lies, redirects away and sends bombs: every refused response
/// is a failed comic in the summary with its reason, nothing it said is stored, the next run
/// asks again, and the run's memory stays bounded.
@Suite("index against a hostile server")
struct HostileServerIndexTests {
    struct Summary: Decodable {
        struct Failure: Decodable {
            var num: Int
            var what: String
            var reason: String
        }
        var latest: Int
        var failed: [Failure]
    }

    @Test func refusedResponsesAreFailuresRetriedByTheNextRun() async throws {
        try await withTemporaryDirectory { directory in
            let server = FixtureServer(latest: 1190)
            let base = try await server.start()
            let comic149 = try Data(contentsOf: Fixtures.corpusURL.appendingPathComponent("xkcd/149/info.0.json"))
            let explain149 = try Data(contentsOf: Fixtures.corpusURL.appendingPathComponent("explainxkcd/api/149.json"))
            let faults: [(path: String, fault: FixtureServer.Fault, what: String, num: Int, reason: String)] = [
                (
                    FixtureServer.comicPath(10), .body(Fixtures.renumbered(comic149, 99999)), "comic", 10,
                    "it is comic #99999, not #10"
                ),
                (
                    FixtureServer.comicPath(2), .body(Fixtures.renumbered(comic149, 0)), "comic", 2,
                    "it is comic #0, not #2"
                ),
                (FixtureServer.comicPath(1), .body(comic149), "comic", 1, "it is comic #149, not #1"),
                (
                    FixtureServer.comicPath(149), .redirect("file:///etc/passwd"), "comic", 149,
                    "redirected to file:///etc/passwd"
                ),
                (
                    FixtureServer.comicPath(327), .gzipBomb(inflatedBytes: 256 << 20), "comic", 327,
                    "larger than the limit of 4 MB"
                ),
                (
                    FixtureServer.explainPath(472), .largeBody(bytes: 50 << 20, announced: false), "explanation", 472,
                    "larger than the limit"
                ),
                (
                    FixtureServer.explainPath(1116), .largeBody(bytes: 50 << 20, announced: true), "explanation", 1116,
                    "larger than the limit"
                ),
                (
                    FixtureServer.explainPath(1137), .body(explain149), "explanation", 1137,
                    "the page is '149: Sandwich', not #1137's"
                ),
            ]
            for fault in faults { server.setFault(fault.fault, forPath: fault.path) }
            // Embedding too, as a default run does: the model's mapping counts in the peak.
            let cli = try BinaryRunner(sandbox: directory, embeds: true)
            let db = directory.appendingPathComponent("index.sqlite").path
            let urls = ["--xkcd-url", base.absoluteString, "--explain-url", base.absoluteString]

            // Peak memory through /usr/bin/time -v, which writes its report to standard error.
            let first = try await cli.run(["index", "--db", db, "--json"] + urls, wrapper: ["/usr/bin/time", "-v"])
            #expect(first.status == 3, "\(first)")
            let summary = try JSONDecoder().decode(Summary.self, from: Data(first.stdout.utf8))
            #expect(summary.latest == 1190)
            for fault in faults {
                let failure = summary.failed.first { $0.num == fault.num && $0.what == fault.what }
                #expect(failure?.reason.contains(fault.reason) == true, "#\(fault.num): \(String(describing: failure))")
            }
            #expect(summary.failed.count == faults.count, "\(summary.failed)")
            let peak = first.stderrLines.first { $0.contains("Maximum resident set size") }
                .flatMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }
            let kilobytes = try #require(peak, "\(first.stderr)")
            #expect(kilobytes < 200 * 1024, "peak memory \(kilobytes / 1024) MB")

            // Nothing the server lied about was stored: no #99999, no #0, #1 is not #149.
            let latest = try await cli.run(["latest", "--db", db])
            #expect(latest.stdout.hasPrefix("#1190 "), "\(latest)")
            let ghost = try await cli.run(["show", "99999", "--db", db])
            #expect(ghost.status != 0)
            let show149 = try await cli.run(["show", "149", "--db", db])
            #expect(show149.status != 0, "a redirected comic is not stored: \(show149)")

            server.clearFaults()
            let second = try await cli.run(["index", "--db", db, "--json"] + urls)
            #expect(second.status == 0, "\(second)")
            for id in [1, 2, 10, 149, 327] {
                let show = try await cli.run(["show", String(id), "--db", db])
                #expect(show.stdout.hasPrefix("#\(id) "), "\(show)")
            }
            let explained = try await cli.run(["explain", "1137", "--db", db])
            #expect(explained.status == 0, "\(explained)")
            await server.stop()
        }
    }
}
