import Foundation
import Synchronization
import Testing
import XKCDFiles
import XKCDIndexer
import XKCDKit
import XKCDStore
import _XKCDTestSupport

/// ``IndexRun``: a whole `index` run as any front end starts it, without a terminal.
@Suite("IndexRun: the index run a front end starts")
struct IndexRunTests {
    /// A run from the fixture mirror stores every comic and says how far it got as it went; while
    /// it lives, a second run on the same file is refused with the store's error, which names the
    /// file and no command to type.
    @Test func aRunFromAMirrorReportsItsStagesAndHoldsTheLock() async throws {
        let directory = try makeTemporaryDirectory("index-run")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        var options = IndexRun.Options()
        options.mirror = Fixtures.corpusURL
        options.embeds = false
        var paths = Paths(database: path)
        paths.cacheDirectory = directory.appendingPathComponent("cache")
        let services = Services(paths: paths, logger: quietLogger)
        let run = try IndexRun(services: services, options: options)
        let events = Mutex<[String]>([])
        let outcome = try await run.run { event in
            switch event {
            case .progress(let stage, let progress):
                events.withLock { $0.append("\(stage) \(progress.completed)/\(progress.total)") }
            case .finished(let stage): events.withLock { $0.append("finished \(stage)") }
            default: events.withLock { $0.append("\(event)") }
            }
        }
        #expect(!outcome.isInterrupted)
        #expect(outcome.vectors == nil, "embeds is off")
        #expect(outcome.report.failures.isEmpty)
        #expect(try run.database.comicIDs() == Fixtures.comicIDs.sorted())
        let seen = events.withLock { $0 }
        // Every number up to the latest is asked for (the mirror lacks most): the last progress
        // is all of them, then the stage ends, and nothing else happened.
        let latest = outcome.report.latest
        #expect(seen.suffix(2) == ["indexing \(latest)/\(latest)", "finished indexing"], "\(seen.suffix(3))")
        #expect(
            seen.allSatisfy { $0.hasPrefix("indexing ") || $0 == "finished indexing" },
            "\(seen.filter { !$0.hasPrefix("indexing ") })")

        #expect(throws: StoreError.indexRunInProgress(path: path)) {
            _ = try IndexRun(services: services, options: options)
        }
        withExtendedLifetime(run) {}
    }
}
