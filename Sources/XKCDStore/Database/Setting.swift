import Foundation
import GRDB

/// The keys of the `setting` table, where the index keeps values about itself: one list, so that
/// no key is spelled twice and no one reads a key that nothing writes.
enum Setting: String, Sendable {
    /// When the last index run finished (ISO 8601); `stats` shows it.
    case lastUpdate
    /// The comic shown last, for `next` and `prev`.
    case currentComic
    /// Set while explanations stored by an earlier version lack what only parsing them again
    /// gives (the links between comics); its value says what.
    case explanationsNeedParsing
    /// Which state of the documents the ranking index was built for (``DocumentLengths``).
    case rankingGeneration
    /// A number that every change to the sentence vectors raises (triggers on `comicVector`), so
    /// that vectors kept in memory are known to be current (``VectorCache``).
    case vectorsVersion
    /// A number that every change to the links between comics raises (triggers on `comicLink`),
    /// so that link counts kept in memory are known to be current (``LinkCountCache``).
    case linksVersion
    /// A number that every change to the linked passages, and every comic added or removed,
    /// raises (triggers on `linkedPassage` and `comic`), so that linked passages kept in memory
    /// are known to be current (``LinkedPassageCache``).
    case linkedPassagesVersion
}

extension ComicDatabase {
    func setting(_ key: Setting) throws(StoreError) -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key.rawValue])
        }
    }

    func setSetting(_ key: Setting, to value: String) throws(StoreError) {
        try write { db in try Self.setSetting(key, to: value, db) }
    }

    /// Within a read already under way (one cached statement, asked on every search).
    static func setting(_ key: Setting, _ db: Database) throws -> String? {
        var value: String?
        try db.cachedStatement(sql: "SELECT value FROM setting WHERE key = ?")
            .forEachRow(binding: [.text(key.rawValue)]) { row in value = row.text(0) }
        return value
    }

    /// Within a transaction already under way.
    static func setSetting(_ key: Setting, to value: String, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO setting(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [key.rawValue, value])
    }

    func removeSetting(_ key: Setting) throws(StoreError) {
        try write { db in try db.execute(sql: "DELETE FROM setting WHERE key = ?", arguments: [key.rawValue]) }
    }

    /// Records that an index run finished at `date`, for ``statistics()``'s `lastUpdate`.
    package func setLastUpdate(_ date: Date) throws(StoreError) {
        try setSetting(.lastUpdate, to: ISO8601DateFormatter().string(from: date))
    }
}
