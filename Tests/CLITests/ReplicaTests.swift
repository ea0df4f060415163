import Foundation
import Testing
import _XKCDTestSupport

/// Read-only replicas of one index behind nginx, as docs/server.md runs them (issue 39): two
/// `serve --read-only` on loopback under load, one killed, then a new index published to both
/// and the killed one started again (Tests/Clients/replicas.py runs the steps). No request
/// fails, and once an answer comes from the new file, none comes from the old one.
@Suite("serve: replicas behind nginx")
struct ReplicaTests {
    /// Why the test cannot run here, or nil when it can.
    static let missing: String? = {
        let found = try? runToolWaiting(["sh", "-c", "command -v nginx || test -x /usr/sbin/nginx"])
        guard found?.status == 0 else { return "nginx is not installed (Debian's nginx: make test-deps)" }
        guard TestPython.executable != nil else { return "the tests' Python is missing (make test-venv)" }
        return nil
    }()

    static let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func aNewIndexIsPublishedToReplicasUnderLoadWhileOneIsKilled() async throws {
        try await withBrowseSandbox { sandbox in
            let python = try #require(TestPython.executable)
            let script = Self.packageDirectory.appendingPathComponent("Tests/Clients/replicas.py")
            let serverNotes = Self.packageDirectory.appendingPathComponent("docs/server.md")
            let work = sandbox.directory.appendingPathComponent("replicas")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            // A consistent copy of the fixture index as the script's source, as `.backup` makes one.
            let copied = try await runTool([
                "sqlite3", sandbox.db, ".backup \(work.appendingPathComponent("index.sqlite").path)",
            ])
            #expect(copied.status == 0, "\(copied.output)")
            let run = try await runTool([
                "env", "HOME=\(sandbox.directory.path)",
                "XDG_STATE_HOME=\(sandbox.directory.appendingPathComponent("state").path)",
                "XDG_CACHE_HOME=\(sandbox.directory.appendingPathComponent("cache").path)",
                python.path, script.path, sandbox.cli.executable.path, work.path, serverNotes.path,
            ])
            let summaryLine = run.output.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
            let summary = try #require(
                try? JSONSerialization.jsonObject(with: Data(summaryLine.utf8)) as? [String: Any],
                "replicas.py said: \(run.output)")
            print("replicas behind nginx: \(summary["answers"] ?? 0) answers")
            #expect(run.status == 0, "\(run.output)")
            #expect(summary["failures"] as? [String] == [], "\(summary)")
            #expect(summary["oldAfterNew"] as? Int == 0, "\(summary)")
            #expect((summary["oldBeforeNew"] as? Int ?? 0) > 0, "the old file was served first: \(summary)")
            #expect(summary["replicasServeTheNewFile"] as? [Bool] == [true, true], "\(summary)")
            // Every replica's file is an index still, and the published copies were not changed.
            for replica in ["r1", "r2"] {
                let path = work.appendingPathComponent("\(replica)/index.sqlite").path
                let check = try await runTool(["sqlite3", path, "PRAGMA quick_check"])
                #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(replica): \(check)")
            }
        }
    }
}
