import Foundation
import GRDB
import Synchronization
import Testing
import XKCDFiles
import XKCDModel

@testable import XKCDSnippets
@testable import XKCDStore

@Suite struct ComicDatabaseFileTests {
    @Test func onDiskDatabaseUsesWALAndReopens() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-store-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("nested/index.sqlite").path
        do {
            let database = try ComicDatabase.open(at: path)
            try database.apply([
                ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged)
            ])
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
        let reopened = try ComicDatabase.open(at: path)
        #expect(try reopened.comic(149)?.title == "Sandwich")
        #expect(reopened.path == path)
    }

    /// An index run holds the file it is creating and runs the migrations one transaction each:
    /// a command opening it after the first must neither run the others beside the run nor
    /// take the file for an index.
    @Test(arguments: [ComicDatabase.Connections.pool, .single, .readOnly])
    func aFileBeingBuiltIsNotMigratedByAnotherCommand(_ connections: ComicDatabase.Connections) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-store-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        // As the run holds it: the lock first, then the first migration of the schema.
        let lock = try #require(try ComicDatabase.lockForIndexing(at: path))
        let run = try DatabaseQueue(path: path)
        _ = try run.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
        try Schema.migrator.migrate(run, upTo: "v1")
        #expect(throws: StoreError.beingBuilt(path: path)) {
            try ComicDatabase.open(at: path, connections: connections, creating: false)
        }
        #expect(try run.read { try Schema.migrator.appliedMigrations($0) } == ["v1"], "another command migrated it")
        withExtendedLifetime(lock) {}
    }

    @Test(arguments: [ComicDatabase.Connections.pool, .single, .readOnly])
    func aFileThatIsNotAnIndexGivesAClearError(_ connections: ComicDatabase.Connections) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-an-index-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        #expect(throws: StoreError.notADatabase(path: path)) {
            try ComicDatabase.open(at: path, connections: connections)
        }
    }

    @Test func aReadOnlyIndexReadsAndRefusesWrites() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-store-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        try ComicDatabase.open(at: path, connections: .single)
            .apply([ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged)])
        let reader = try ComicDatabase.open(at: path, connections: .readOnly)
        #expect(try reader.comic(149)?.title == "Sandwich")
        #expect(throws: StoreError.readOnly) { try reader.setCurrentComicID(149) }
    }

    /// A search reads in one transaction begun through SQLite itself: what another connection
    /// writes meanwhile stays out of it, and it ends even when the search throws.
    @Test(arguments: [ComicDatabase.Connections.pool, .readOnly])
    func aReadingIsOneSnapshotAndAlwaysEnds(_ connections: ComicDatabase.Connections) throws {
        try withIndexPath { path in
            // A pool, as the indexer writes: in WAL mode a write need not wait for the reader.
            let writer = try ComicDatabase.open(at: path, connections: .pool)
            try writer.apply([
                ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged)
            ])
            let reader = try ComicDatabase.open(at: path, connections: connections)
            let seen = try reader.reading { snapshot in
                let before = try snapshot.summaries(of: [149, 327]).map { $0?.title }
                try writer.apply([
                    ComicUpdate(id: 327, comic: .fetched(Sample.exploits, at: Date()), explanation: .unchanged)
                ])
                return (before, try snapshot.summaries(of: [149, 327]).map { $0?.title })
            }
            #expect(seen.0 == ["Sandwich", nil])
            #expect(seen.1 == ["Sandwich", nil])

            struct Stop: Error {}
            #expect(throws: Stop.self) { try reader.reading { _ in throw Stop() } }
            // The thrown reading ended its transaction: the next one begins, and sees the write.
            #expect(try reader.reading { try $0.summaries(of: [327]).map { $0?.title } } == ["Exploits of a Mom"])
        }
    }

    /// `isCurrent` asks only for the newest migration, which must be the last one registered.
    @Test func theNewestMigrationSaysTheIndexIsCurrent() throws {
        #expect(Schema.migrator.migrations.last == Schema.latestMigration)
        let queue = try DatabaseQueue()
        let previous = Schema.migrator.migrations.dropLast().last!
        try Schema.migrator.migrate(queue, upTo: previous)
        #expect(try queue.read(Schema.isCurrent) == false)
        try Schema.migrator.migrate(queue)
        #expect(try queue.read(Schema.isCurrent))
        #expect(try DatabaseQueue().read(Schema.isCurrent) == false)
    }

    /// An index written by an older version is migrated even when opened for reading only.
    @Test func aReadOnlyOpenMigratesAnOlderIndex() throws {
        try withIndexPath { path in
            // A pool, as the indexer writes an index: the file is in WAL mode.
            let older = try DatabasePool(path: path)
            try Schema.migrator.migrate(older, upTo: "v1")
            #expect(try older.read { try Schema.migrator.appliedIdentifiers($0) } == ["v1"])
            try older.close()
            let told = Mutex(0)
            let reader = try ComicDatabase.open(at: path, connections: .readOnly) { told.withLock { $0 += 1 } }
            #expect(told.withLock { $0 } == 1, "the caller is told of the upgrade")
            _ = try ComicDatabase.open(at: path, connections: .readOnly) { told.withLock { $0 += 1 } }
            _ = try ComicDatabase.open(at: path, connections: .single) { told.withLock { $0 += 1 } }
            #expect(told.withLock { $0 } == 1, "an index up to date is opened without a word")
            // The migration's pages are in the file, not left in the write-ahead log for reads.
            let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
            #expect(log == 0)
            #expect(
                try reader.readTermScores(for: ["sandwich"]).unknownWords == ["sandwich"],
                "v2's ranking tables are read")
            let applied = try DatabaseQueue(path: path).read { try Schema.migrator.appliedIdentifiers($0) }
            #expect(
                applied == [
                    "v1", "v2-ranking", "v3-prefix-index", "v4-spelling-shape", "v5-fixed-lengths", "v6-no-exact-table",
                    "v7-spelling-buckets", "v8-comic-links", "v9-comic-vectors", "v10-symbol-words",
                    "v11-image-hashes", "v12-image-part-hashes", "v13-vectors-version", "v14-spelling-first-and-third",
                    "v15-links-version",
                    "v16-linked-passages",
                    "v17-linked-passages-version",
                    "v18-written-situations",
                ])
            // v6 left nothing of the unstemmed full-text table v1 made.
            let leftovers = try DatabaseQueue(path: path).read {
                try String.fetchAll(
                    $0, sql: "SELECT name FROM sqlite_master WHERE name LIKE '%comicExact%' OR name = 'comicVocabulary'"
                )
            }
            #expect(leftovers.isEmpty, "\(leftovers)")
        }
    }

    /// Another process reading the older index keeps its write-ahead log: the update is saved
    /// and the open goes on at once rather than waiting out the busy timeout.
    @Test func aReaderElsewhereDoesNotHoldUpTheUpdate() throws {
        try withIndexPath { path in
            let older = try DatabasePool(path: path)
            try Schema.migrator.migrate(older, upTo: "v2-ranking")
            try older.close()
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            let elsewhere = try DatabaseQueue(path: path, configuration: configuration)
            try elsewhere.inDatabase { db in
                try db.beginTransaction(.deferred)
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM comic")
            }
            let start = Date()
            let told = Mutex(0)
            let reader = try ComicDatabase.open(at: path, connections: .readOnly) { told.withLock { $0 += 1 } }
            #expect(Date().timeIntervalSince(start) < 5)
            #expect(told.withLock { $0 } == 1)
            #expect(try reader.latestComicID() == nil)
            try elsewhere.inDatabase { try $0.rollback() }
        }
    }

    /// A file no version wrote is neither announced as an update nor written to when it is
    /// opened for reading: it is not an index.
    @Test func anEmptyOrForeignFileOpenedForReadingIsNotAnIndex() throws {
        try withIndexPath { path in
            _ = FileManager.default.createFile(atPath: path, contents: Data())
            let told = Mutex(0)
            #expect(throws: StoreError.emptyFile(path: path)) {
                try ComicDatabase.open(at: path, connections: .readOnly) { told.withLock { $0 += 1 } }
            }
            #expect(told.withLock { $0 } == 0)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == 0)

            let foreign = try DatabaseQueue(path: path)
            try foreign.write { try $0.execute(sql: "CREATE TABLE notes(text TEXT)") }
            try foreign.close()
            #expect(throws: StoreError.foreignDatabase(path: path)) {
                try ComicDatabase.open(at: path, connections: .readOnly) { told.withLock { $0 += 1 } }
            }
            let tables = try DatabaseQueue(path: path).read {
                try String.fetchAll($0, sql: "SELECT name FROM sqlite_master")
            }
            #expect(tables == ["notes"])
            #expect(told.withLock { $0 } == 0)

            // Another program's GRDB migrations are not this program's.
            let migrated = try DatabaseQueue(path: path)
            var theirs = DatabaseMigrator()
            theirs.registerMigration("initial") { try $0.execute(sql: "CREATE TABLE cards(text TEXT)") }
            try theirs.migrate(migrated)
            try migrated.close()
            #expect(throws: StoreError.foreignDatabase(path: path)) {
                try ComicDatabase.open(at: path, connections: .readOnly) { told.withLock { $0 += 1 } }
            }
            let after = try DatabaseQueue(path: path).read {
                try String.fetchAll($0, sql: "SELECT name FROM sqlite_master ORDER BY name")
            }
            #expect(!after.contains("comic") && !after.contains("searchDocument"), "\(after)")
            #expect(told.withLock { $0 } == 0)
        }
    }

    /// Ranking data in another layout (an older version's varints, or damage) is reported with
    /// what to do, not searched as if the index were empty.
    @Test func rankingDataInAnotherLayoutIsReported() throws {
        let database = try ComicDatabase.inMemory()
        try database.apply([ComicUpdate(id: 149, comic: .fetched(Sample.sandwich, at: Date()), explanation: .unchanged)]
        )
        try database.rebuildRankingIndex()
        #expect(try database.readTermScores(for: ["sandwich"]).matchingAll == [149])
        try database.writer.write { db in
            try db.execute(sql: "UPDATE rankingData SET value = x'950b01020304' WHERE name = 'lengths'")
            // A new generation, so that the lengths are read again.
            try db.execute(sql: "INSERT OR REPLACE INTO setting(key, value) VALUES ('rankingGeneration', 'changed')")
        }
        #expect(throws: DocumentLengths.damaged) { try database.readTermScores(for: ["sandwich"]) }
        #expect(DocumentLengths.damaged.description.contains("ranking data is damaged"))
    }

    /// An in-memory index migrated up to `migration`, holding one document given as SQL values
    /// (id, title, alt, transcript, explanation).
    private func olderIndex(upTo migration: String, holding document: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try Schema.migrator.migrate(queue, upTo: migration)
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO searchDocument(id, title, alt, transcript, explanation) VALUES \(document)")
        }
        return queue
    }

    /// An index of v6 gets its spelling words grouped in blobs by v7, from the words it holds,
    /// and misspellings are looked up in them.
    @Test func migrationGroupsTheSpellingWordsOfAnOlderIndex() throws {
        let queue = try olderIndex(
            upTo: "v6-no-exact-table",
            holding:
                "(149, 'Sandwich', 'Proper User Policy apparently means Simon Says.', '', 'Sudo make me a sandwich')")
        try queue.write { try RankingIndex.rebuild($0) }
        let database = try ComicDatabase(queue)
        let buckets = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM spellingBucket") }
        #expect(
            buckets == 19,
            """
            sa (sandwich, says), pr, us, po, ap, me, si, su, ma: one per two first letters; s_n, p_o, u_e, \
            p_l, a_p, m_a, s_m, s_y, s_d, m_k: one per first and third
            """)
        let candidates = try database.reading { try $0.spellingCandidates(near: "sandwhich") }
        #expect(candidates.map(\.term) == ["sandwich"])
        #expect(candidates.map(\.documentCount) == [1])
        #expect(try database.reading { try $0.spellingCandidates(near: "sandwhich", minimumCount: 2) }.isEmpty)
        // Its second letter dropped, by the first and third letters.
        #expect(try database.reading { try $0.spellingCandidates(near: "sndwich") }.map(\.term) == ["sandwich"])
        let indexes = try queue.read {
            try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE name = 'spellingTermShape'")
        }
        #expect(indexes.isEmpty)
    }

    /// The stemmed full-text table of an index written before the prefix index is created again
    /// with one, and filled from the stored documents.
    @Test func migrationAddsThePrefixIndexAndKeepsTheDocuments() throws {
        let queue = try olderIndex(
            upTo: "v2-ranking",
            holding:
                "(2347, 'Dependency', 'Someday ImageMagick will finally break', '', 'A project some random person maintains')"
        )
        let database = try ComicDatabase(queue)
        let definition = try queue.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'comicSearch'")
        }
        #expect(definition?.contains("prefix='2 3 4'") == true)
        #expect(try database.readComicIDs(matching: .prefix("dep", field: .title)) == [2347])
        #expect(try database.readComicIDs(matching: .prefix("imag", field: nil)) == [2347])
        #expect(try database.readComicIDs(matching: .prefix("maintai", field: .explanation)) == [2347])
        #expect(try database.integrityProblems().isEmpty)
        try queue.write { db in
            try db.execute(sql: "UPDATE searchDocument SET title = 'Independence' WHERE id = 2347")
        }
        // Asked of FTS5 itself: this write bypasses the store, which marks the ranking index
        // out of date whenever it writes documents.
        #expect(
            try database.reading { try $0.comicIDsFromFullText(matching: .prefix("dep", field: .title)) }.isEmpty,
            "the triggers keep it current")
        #expect(try database.reading { try $0.comicIDsFromFullText(matching: .prefix("ind", field: .title)) } == [2347])
    }
}

/// Runs `body` with the path of an `index.sqlite` in a new directory, removed afterwards.
func withIndexPath(_ body: (String) throws -> Void) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-store-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try body(directory.appendingPathComponent("index.sqlite").path)
}
