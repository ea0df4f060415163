import Foundation
import Testing
import _XKCDTestSupport

/// What an index run does when there is little to do: a run with nothing new reads no comic's
/// text for the embedding step, and a rebuild leaves no free pages behind.
@Suite("index runs with little to do")
struct IndexRunWorkTests {
    @Test func aRunWithNothingNewReadsNoTextToEmbed() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory, embeds: true)
            let db = directory.appendingPathComponent("index.sqlite").path
            let arguments = ["index", "--db", db, "--mirror", Fixtures.corpusURL.path, "-v"]
            let first = try await cli.run(arguments)
            #expect(
                first.status == 0 && first.stderr.contains("embedded, 0 imported, 0 current; comic texts read: "),
                "\(first)")
            #expect(!first.stderr.contains("comic texts read: 0"), "\(first)")
            let again = try await cli.run(arguments)
            #expect(again.status == 0, "\(again)")
            #expect(
                again.stderr.contains("vectors: 0 embedded, 0 imported, ")
                    && again.stderr.contains("comic texts read: 0\n"), "\(again)")
        }
    }

    /// A mirror read again a day later: the incomplete explanations and the missing ones are
    /// asked for again, but the same revision is the same text, and nothing is read for the
    /// embedding step.
    @Test func explanationsFetchedAgainUnchangedReadNoTextToEmbed() async throws {
        try await withTemporaryDirectory { directory in
            let mirror = directory.appendingPathComponent("mirror")
            try FileManager.default.copyItem(at: Fixtures.corpusURL, to: mirror)
            // Files of three days ago, as a mirror unpacked from an older snapshot.
            let aged = try await runTool([
                "find", mirror.path, "-type", "f", "-exec", "touch", "-d", "3 days ago", "{}", "+",
            ])
            #expect(aged.status == 0, "\(aged.output)")
            let cli = try BinaryRunner(sandbox: directory, embeds: true)
            let db = directory.appendingPathComponent("index.sqlite").path
            let arguments = ["index", "--db", db, "--mirror", mirror.path, "-v", "--json"]
            #expect(try await cli.run(arguments).status == 0)
            // The same day, nothing is asked again, however old the mirror's files.
            let sameDay = try await cli.run(arguments)
            let sameDaySummary = try JSONSerialization.jsonObject(with: Data(sameDay.stdout.utf8)) as? [String: Any]
            #expect(sameDaySummary?["explanationsFetched"] as? Int == 0, "\(sameDay)")
            // The runs asked a day and a half ago (the index keeps when each was asked).
            let earlier = try await runTool([
                "sqlite3", db, "UPDATE fetchState SET attemptedAt = datetime(attemptedAt, '-36 hours')",
            ])
            #expect(earlier.status == 0, "\(earlier.output)")
            let again = try await cli.run(arguments)
            #expect(again.status == 0, "\(again)")
            let summary = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
            let refetched = summary?["explanationsFetched"] as? Int ?? 0
            #expect(refetched > 0, "the test needs explanations asked for again: \(again.stdout)")
            #expect(again.stderr.contains("comic texts read: 0\n"), "\(again)")
        }
    }

    @Test func aRebuildLeavesNoFreePages() async throws {
        try await withTemporaryDirectory { directory in
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let index = ["index", "--db", db, "--mirror", Fixtures.corpusURL.path]
            #expect(try await cli.run(index).status == 0)
            let rebuild = try await cli.run(index + ["--rebuild"])
            #expect(rebuild.status == 0, "\(rebuild)")
            let free = try await runTool(["sqlite3", db, "PRAGMA freelist_count"])
            #expect(
                free.status == 0 && free.output.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(free.output)"
            )
            let search = try await cli.run(["search", "bobby", "tables", "--db", db])
            #expect(search.status == 0 && search.stdoutLines.first?.hasPrefix("#327") == true, "\(search)")
        }
    }
}
