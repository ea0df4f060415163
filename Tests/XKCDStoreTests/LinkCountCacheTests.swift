import Foundation
import GRDB
import Testing
import XKCDModel

@testable import XKCDStore

/// The link counts a process keeps in memory (``LinkCountCache``): the same counts as the index
/// gives, kept only from the second search on, and read again whenever any connection changes
/// the links.
@Suite struct LinkCountCacheTests {
    private static func counts(_ database: ComicDatabase, of ids: [Int] = candidates) throws -> [Int: Int] {
        try database.reading { view in try view.linkingCounts(to: ids) }
    }

    private func withIndex(_ body: (String, ComicDatabase) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-links-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        let database = try ComicDatabase.open(at: path)
        // Comic n's explanation links to every comic from 1 to n - 1: comic k is linked from
        // the 10 - k comics after it, up to 10.
        try database.write { db in
            for id in 1...10 { try database.replaceLinks(from: id, to: Array(1..<id), in: db) }
        }
        try body(path, database)
    }

    private static let candidates = [1, 4, 9, 10, 42]
    private static let expected = [1: 9, 4: 6, 9: 1]

    @Test func keptCountsAreTheIndexs() throws {
        try withIndex { _, database throws in
            for search in 1...3 {
                #expect(try Self.counts(database) == Self.expected)
                // A one-shot search asks for its candidates and keeps nothing; the second keeps all.
                #expect(database.linkCountCache.isKept == (search >= 2), "search \(search)")
            }
            #expect(try Self.counts(database, of: []).isEmpty)
        }
    }

    /// Another process indexing (here another connection to the file), or any program changing
    /// the table, raises the version: the next search reads the counts again.
    @Test func aChangeByAnyConnectionIsSeen() throws {
        try withIndex { path, database in
            for _ in 1...2 { _ = try Self.counts(database) }
            #expect(database.linkCountCache.isKept)

            // Comic 10's explanation now links to 42 alone.
            let other = try ComicDatabase.open(at: path)
            try other.write { db in try other.replaceLinks(from: 10, to: [42], in: db) }
            let changed = [1: 8, 4: 5, 42: 1]
            #expect(try Self.counts(database) == changed)
            #expect(!database.linkCountCache.isKept)
            #expect(try Self.counts(database) == changed)
            #expect(database.linkCountCache.isKept)

            // A plain SQLite connection, as another program would write.
            let plain = try DatabaseQueue(path: path)
            try plain.write { db in try db.execute(sql: "DELETE FROM comicLink WHERE linkedID = 1") }
            for _ in 1...2 {
                #expect(try Self.counts(database) == [4: 5, 42: 1])
            }
            let version = try plain.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'linksVersion'")
            }
            // 45 links inserted, comic 10's 9 deleted and one inserted, then comic 1's 8 deleted.
            #expect(version == "63")
        }
    }
}
