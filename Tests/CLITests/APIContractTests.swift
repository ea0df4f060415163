import Foundation
import Testing
import _XKCDTestSupport

/// The HTTP API checked against its own OpenAPI document by a tool no one here wrote:
/// Schemathesis generates requests from `/api/openapi.json` (valid ones and ones the document
/// forbids), sends them to the real `serve` over loopback, and checks every answer against the
/// document. It must find nothing. Bounded and seeded, so a run is the same run every time.
@Suite("the API's contract, by Schemathesis")
struct APIContractTests {
    /// Schemathesis in the tests' Python, or nil when `make test-venv` has not installed it.
    static let schemathesis: URL? = {
        let st = TestPython.environment.appendingPathComponent("bin/st")
        return FileManager.default.isExecutableFile(atPath: st.path) ? st : nil
    }()

    static let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Clients/schemathesis.toml")

    @Test(.enabled(if: schemathesis != nil, "Schemathesis is not installed (make test-venv)"))
    func schemathesisFindsNothing() async throws {
        try await withBrowseSandbox { sandbox in
            // Port 9 (discard) on loopback: `/images/{n}` never reaches the network.
            let (child, base) = try await ServeCommandTests.startServer(
                sandbox, ["--image-url", "http://127.0.0.1:9"])
            defer { child.kill(SIGTERM) }
            let work = sandbox.directory.appendingPathComponent("schemathesis")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            // Run from its own directory, Hypothesis's files kept there: nothing lands in the tree.
            let run = try await runTool([
                "sh", "-c", #"cd "$1" && shift && exec "$@""#, "sh", work.path,
                "env", "HYPOTHESIS_STORAGE_DIRECTORY=\(work.appendingPathComponent("hypothesis").path)",
                try #require(Self.schemathesis).path, "--config-file", Self.configuration.path,
                "run", base.appendingPathComponent("api/openapi.json").absoluteString,
                "--checks", "all", "--max-examples", "30", "--seed", "1", "--generation-database=none",
                "--request-timeout", "60", "--no-color",
            ])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("passed"), "\(run.output)")
        }
    }
}
