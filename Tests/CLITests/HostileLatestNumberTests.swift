import Foundation
import Testing
import _XKCDTestSupport

/// `index` against a server whose latest comic number cannot be xkcd's: the run fails with one
/// line saying why, before asking for any comic. Before, 2^63-1 allocated 16.5 GB and aborted,
/// 999999 sent requests without bound, and -1 and 0 were "indexed up to #-1".
@Suite("index against an unbelievable latest number")
struct HostileLatestNumberTests {
    /// The latest comic's JSON with `num` spelled `number` as it is.
    static func latest(_ number: String) throws -> Data {
        let json = String(decoding: Fixtures.renumbered(try Fixtures.comicJSON(1190), 424_242), as: UTF8.self)
        return Data(json.replacingOccurrences(of: "424242", with: number).utf8)
    }

    @Test(arguments: [
        ("9223372036854775807", "not believable"), ("999999", "not believable"), ("-1", "numbers its comics from 1"),
        ("0", "numbers its comics from 1"), ("1e30", "is not a comic number"), ("2.5", "is not a comic number"),
    ])
    func anUnbelievableLatestNumberFailsTheRun(number: String, reason: String) async throws {
        try await withServedIndex { served in
            served.server.setFault(.body(try Self.latest(number)), forPath: FixtureServer.latestPath)
            // Bounded, so that a run that plans 2^63 comics dies here rather than takes the machine.
            let output = try await served.cli.run(
                ["index", "--db", served.db] + served.urls,
                wrapper: ["/bin/sh", "-c", "ulimit -v 4000000 && exec \"$@\"", "sh"])
            #expect(output.status == 1 && output.signal == nil, "\(output)")
            #expect(output.stdout.isEmpty, "\(output)")
            #expect(output.stderrLines.count == 1 && output.stderr.contains(reason), "\(output)")
            #expect(
                served.server.requestLog.allSatisfy { $0 == FixtureServer.latestPath },
                "asked for comics: \(served.server.requestLog.prefix(5))")
            let stored =
                FileManager.default.fileExists(atPath: served.db)
                ? try sqliteLines(served.db, "SELECT count(*) FROM comic") : ["0"]
            #expect(stored == ["0"])
        }
    }

    /// Past an index's latest, a number is believable up to about a comic a day since that
    /// comic's date: far past it is refused, and the index is left as it was.
    @Test func aLatestNumberFarPastTheIndexIsRefused() async throws {
        try await withServedIndex { served in
            let first = try await served.cli.run(["index", "--db", served.db] + served.urls)
            #expect(first.status == 0, "\(first)")
            served.server.setFault(.body(try Self.latest("120000")), forPath: FixtureServer.latestPath)
            served.server.resetLog()
            let output = try await served.cli.run(["index", "--db", served.db] + served.urls)
            #expect(output.status == 1, "\(output)")
            #expect(
                output.stderrLines.count == 1 && output.stderr.contains("the index's latest is #1190 of 2013-03-25"),
                "\(output)")
            #expect(
                served.server.requestLog.allSatisfy { $0 == FixtureServer.latestPath },
                "\(served.server.requestLog.prefix(5))")
            let latest = try await served.cli.run(["latest", "--db", served.db])
            #expect(latest.stdout.hasPrefix("#1190 "), "\(latest)")
        }
    }
}
