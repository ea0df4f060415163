import FoundationEssentials
import GRDB
import XKCDModel

extension ComicDatabase {
    /// Titles that start with `prefix` (case aside, as SQLite's LIKE compares ASCII), the newest
    /// comic first: for typing ahead.
    ///
    /// ```sql
    /// SELECT title FROM comic WHERE title LIKE 'bobby%' ESCAPE '\' ORDER BY id DESC LIMIT 10
    /// ```
    public func titles(startingWith prefix: String, limit: Int) throws(StoreError) -> [String] {
        var pattern = ""
        for character in prefix {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        let like = pattern + "%"
        return try read { db in
            try String.fetchAll(
                db, sql: "SELECT title FROM comic WHERE title LIKE ? ESCAPE '\\' ORDER BY id DESC LIMIT ?",
                arguments: [like, limit])
        }
    }

    public func comic(_ id: Comic.ID) throws(StoreError) -> Comic? {
        try read { db in try ComicRecord.fetchOne(db, key: id)?.comic }
    }

    public func explanation(for id: Comic.ID) throws(StoreError) -> Explanation? {
        try read { db in try ExplanationRecord.fetchOne(db, key: id)?.model }
    }

    /// The explain xkcd revision of each stored explanation that has one: a page fetched again
    /// with the same revision has the same text.
    package func explanationRevisions() throws(StoreError) -> [Comic.ID: Int] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT comicID, revision FROM explanation WHERE revision IS NOT NULL")
            return Dictionary(
                rows.map { row -> (Int, Int) in (row["comicID"], row["revision"]) },
                uniquingKeysWith: { first, _ in first })
        }
    }

    public func latestComicID() throws(StoreError) -> Comic.ID? {
        try read { db in try Int.fetchOne(db, sql: "SELECT max(id) FROM comic") }
    }

    package func statistics() throws(StoreError) -> IndexStatistics {
        try read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT count(*) FROM comic) AS comics,
                           (SELECT max(id) FROM comic) AS latest,
                           (SELECT count(*) FROM explanation) AS explained,
                           (SELECT count(*) FROM explanation WHERE isIncomplete) AS incomplete,
                           (SELECT count(*) FROM favourite) AS favourites,
                           (SELECT count(DISTINCT tag) FROM favouriteTag) AS tags,
                           (SELECT value FROM setting WHERE key = '\(Setting.lastUpdate.rawValue)') AS lastUpdate
                    """)!
            return IndexStatistics(
                comics: row["comics"], latest: row["latest"], explained: row["explained"],
                incompleteExplanations: row["incomplete"], favourites: row["favourites"], tags: row["tags"],
                lastUpdate: row["lastUpdate"])
        }
    }
}

extension ComicDatabase {
    /// The smallest indexed number above `id` (numbers have gaps: #404 never exists), or nil.
    public func comicID(after id: Comic.ID) throws(StoreError) -> Comic.ID? {
        try read { db in try Int.fetchOne(db, SQLRequest<Int>(literal: "SELECT min(id) FROM comic WHERE id > \(id)")) }
    }

    /// The largest indexed number below `id`, or nil.
    public func comicID(before id: Comic.ID) throws(StoreError) -> Comic.ID? {
        try read { db in try Int.fetchOne(db, SQLRequest<Int>(literal: "SELECT max(id) FROM comic WHERE id < \(id)")) }
    }

    /// The smallest indexed number, or nil when the index is empty.
    public func firstComicID() throws(StoreError) -> Comic.ID? {
        try read { db in try Int.fetchOne(db, sql: "SELECT min(id) FROM comic") }
    }

    /// A comic drawn uniformly from the indexed ones, or nil when none is indexed.
    ///
    /// - Parameters:
    ///   - favouritesOnly: draw among the favourites in the index only.
    ///   - tag: draw among the favourites carrying this (normalised) tag only; when given,
    ///     `favouritesOnly` is not needed.
    /// - Returns: the number of the comic drawn, or nil when there is none to draw from.
    /// - Throws: a ``StoreError`` when the index cannot be read (`.busy` while another process
    ///   holds it).
    ///
    /// ```sql
    /// SELECT id FROM comic WHERE id IN (SELECT comicID FROM favourite) ORDER BY random() LIMIT 1
    /// ```
    package func randomComicID(favouritesOnly: Bool = false, taggedWith tag: String? = nil) throws(StoreError)
        -> Comic.ID?
    {
        try read { db in
            if let tag {
                return try Int.fetchOne(
                    db,
                    SQLRequest<Int>(
                        literal: """
                            SELECT id FROM comic WHERE id IN (SELECT comicID FROM favouriteTag WHERE tag = \(tag))
                            ORDER BY random() LIMIT 1
                            """))
            }
            if favouritesOnly {
                return try Int.fetchOne(
                    db,
                    sql: """
                        SELECT id FROM comic WHERE id IN (SELECT comicID FROM favourite) ORDER BY random() LIMIT 1
                        """)
            }
            return try Int.fetchOne(db, sql: "SELECT id FROM comic ORDER BY random() LIMIT 1")
        }
    }

    /// The comic shown last (by `show`, `next`, `prev`, `random`…), or nil before the first.
    public func currentComicID() throws(StoreError) -> Comic.ID? {
        try setting(.currentComic).flatMap { Int($0) }
    }

    package func setCurrentComicID(_ id: Comic.ID) throws(StoreError) {
        try setSetting(.currentComic, to: String(id))
    }
}
