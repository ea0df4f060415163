import Foundation
import Testing
import _XKCDTestSupport

/// A base URL option that names no port is refused in one line before anything is fetched
/// (libcurl refused it as a malformed URL, which was reported as "connection lost").
@Suite("base URL options")
struct BaseURLOptionTests {
    /// The other sites at a closed local port: nothing here may reach the internet.
    @Test(arguments: [
        ["index", "--xkcd-url", "http://127.0.0.1:99999", "--explain-url", "http://127.0.0.1:9"],
        ["index", "--explain-url", "http://127.0.0.1:99999", "--xkcd-url", "http://127.0.0.1:9"],
        [
            "index", "--image-url", "http://127.0.0.1:99999", "--xkcd-url", "http://127.0.0.1:9", "--explain-url",
            "http://127.0.0.1:9",
        ],
        ["show", "327", "--image", "always", "--image-url", "http://127.0.0.1:99999"],
    ])
    func aPortThatIsNoPortIsRefused(_ arguments: [String]) async throws {
        try await withBrowseSandbox { sandbox in
            let result = try await sandbox.cli.run(arguments + ["--db", sandbox.db])
            #expect(result.status != 0, "\(result)")
            #expect(result.stderr.contains("names port 99999, which is not a port (1 to 65535)"), "\(result)")
            #expect(!result.stderr.contains("connection lost"), "\(result)")
        }
    }
}
