import Foundation
import GRDB
import XKCDModel

/// Counts for `xkcd-search stats`.
public struct IndexStatistics: Sendable, Equatable, Codable {
    public var comics: Int
    public var latest: Comic.ID?
    public var explained: Int
    public var incompleteExplanations: Int
    public var favourites: Int
    public var tags: Int
    public var lastUpdate: String?
}

extension ComicDatabase {
    public func comic(_ id: Comic.ID) throws(StoreError) -> Comic? {
        try read { db in try ComicRecord.fetchOne(db, key: id)?.comic }
    }

    public func explanation(for id: Comic.ID) throws(StoreError) -> Explanation? {
        try read { db in try ExplanationRecord.fetchOne(db, key: id)?.model }
    }

    public func latestComicID() throws(StoreError) -> Comic.ID? {
        try read { db in try Int.fetchOne(db, sql: "SELECT max(id) FROM comic") }
    }

    public func statistics() throws(StoreError) -> IndexStatistics {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT (SELECT count(*) FROM comic) AS comics,
                       (SELECT max(id) FROM comic) AS latest,
                       (SELECT count(*) FROM explanation) AS explained,
                       (SELECT count(*) FROM explanation WHERE isIncomplete) AS incomplete,
                       (SELECT count(*) FROM favourite) AS favourites,
                       (SELECT count(DISTINCT tag) FROM favouriteTag) AS tags,
                       (SELECT value FROM setting WHERE key = 'lastUpdate') AS lastUpdate
                """)!
            return IndexStatistics(
                comics: row["comics"], latest: row["latest"], explained: row["explained"],
                incompleteExplanations: row["incomplete"], favourites: row["favourites"], tags: row["tags"],
                lastUpdate: row["lastUpdate"])
        }
    }
}
