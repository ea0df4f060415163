import FoundationEssentials
import GRDB
import XKCDModel

extension ComicDatabase {
    /// Makes `id` a favourite (keeping the first `addedAt` when it already is one) and attaches `tags`.
    ///
    /// Tags must already be normalised; the facade does that.
    ///
    /// ```sql
    /// INSERT INTO favourite(comicID, addedAt) VALUES (327, ?) ON CONFLICT DO NOTHING
    /// INSERT INTO favouriteTag(comicID, tag) VALUES (327, 'sql') ON CONFLICT DO NOTHING
    /// ```
    /// - Returns: what changed: empty when `id` was a favourite with all of `tags` already.
    @discardableResult
    public func addFavourite(_ id: Comic.ID, tags: [String] = [], at date: Date = Date()) throws(StoreError)
        -> FavouriteMerge
    {
        try mergeFavourites([Favourite(id: id, addedAt: date, tags: tags)])
    }

    /// Adds every favourite and tag in one transaction; existing favourites keep their `addedAt`.
    @discardableResult
    package func mergeFavourites(_ favourites: [Favourite]) throws(StoreError) -> FavouriteMerge {
        try write { db in
            var merge = FavouriteMerge()
            for favourite in favourites {
                try db.execute(
                    literal: """
                        INSERT INTO favourite(comicID, addedAt) VALUES (\(favourite.id), \(favourite.addedAt))
                        ON CONFLICT(comicID) DO NOTHING
                        """)
                if db.changesCount > 0, !merge.addedFavourites.contains(favourite.id) {
                    merge.addedFavourites.append(favourite.id)
                }
                merge.addedTags += try insertTags(favourite.tags, for: favourite.id, in: db)
            }
            merge.addedFavourites.sort()
            return merge
        }
    }

    /// Removes a favourite and its tags.
    /// - Returns: false when `id` was not a favourite.
    @discardableResult
    public func removeFavourite(_ id: Comic.ID) throws(StoreError) -> Bool {
        try write { db in
            // The foreign key cascades, but say it outright in case foreign keys are ever off.
            try db.execute(literal: "DELETE FROM favouriteTag WHERE comicID = \(id)")
            try db.execute(literal: "DELETE FROM favourite WHERE comicID = \(id)")
            return db.changesCount > 0
        }
    }

    /// Attaches normalised `tags` to a favourite.
    /// - Returns: the tags that were new, or nil when `id` is not a favourite.
    package func addTags(_ tags: [String], to id: Comic.ID) throws(StoreError) -> [String]? {
        try write { db in
            guard try FavouriteRecord.exists(db, key: id) else { return nil }
            var added: [String] = []
            for tag in tags {
                if try insertTags([tag], for: id, in: db) > 0 { added.append(tag) }
            }
            return added
        }
    }

    /// Detaches `tags` from a favourite.
    /// - Returns: the tags that were attached and are now gone, or nil when `id` is not a favourite.
    package func removeTags(_ tags: [String], from id: Comic.ID) throws(StoreError) -> [String]? {
        try write { db in
            guard try FavouriteRecord.exists(db, key: id) else { return nil }
            var removed: [String] = []
            for tag in tags {
                try db.execute(literal: "DELETE FROM favouriteTag WHERE comicID = \(id) AND tag = \(tag)")
                if db.changesCount > 0 { removed.append(tag) }
            }
            return removed
        }
    }

    /// One favourite with its tags, or nil when `id` is not a favourite.
    public func favourite(_ id: Comic.ID) throws(StoreError) -> Favourite? {
        try read { db in
            guard let record = try FavouriteRecord.fetchOne(db, key: id) else { return nil }
            let tags = try String.fetchAll(
                db, SQLRequest<String>(literal: "SELECT tag FROM favouriteTag WHERE comicID = \(id) ORDER BY tag"))
            return Favourite(id: id, addedAt: record.addedAt, tags: tags)
        }
    }

    /// Every favourite in ascending comic order, or only those carrying `tag`.
    ///
    /// ```sql
    /// SELECT comicID, addedAt FROM favourite
    /// WHERE comicID IN (SELECT comicID FROM favouriteTag WHERE tag = 'sql') ORDER BY comicID
    /// ```
    public func favourites(taggedWith tag: String? = nil) throws(StoreError) -> [Favourite] {
        try read { db in
            let records: [FavouriteRecord]
            if let tag {
                records = try FavouriteRecord.fetchAll(
                    db,
                    SQLRequest<FavouriteRecord>(
                        literal: """
                            SELECT * FROM favourite
                            WHERE comicID IN (SELECT comicID FROM favouriteTag WHERE tag = \(tag))
                            ORDER BY comicID
                            """))
            } else {
                records = try FavouriteRecord.fetchAll(db, sql: "SELECT * FROM favourite ORDER BY comicID")
            }
            var tags: [Int: [String]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT comicID, tag FROM favouriteTag ORDER BY comicID, tag") {
                tags[row["comicID"], default: []].append(row["tag"])
            }
            return records.map { Favourite(id: $0.comicID, addedAt: $0.addedAt, tags: tags[$0.comicID] ?? []) }
        }
    }

    /// Every tag in use with the number of favourites carrying it, by tag.
    public func tagCounts() throws(StoreError) -> [TagCount] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT tag, count(*) AS n FROM favouriteTag GROUP BY tag ORDER BY tag")
                .map { TagCount(tag: $0["tag"], count: $0["n"]) }
        }
    }

    /// The numbers of every favourite, for the search filter `is:fav`.
    package func favouriteIDs() throws(StoreError) -> Set<Comic.ID> {
        try read { db in try Set(Int.fetchAll(db, sql: "SELECT comicID FROM favourite")) }
    }

    /// The numbers of the favourites tagged `tag` (normalised), for the search filter `tag:NAME`.
    public func comicIDs(taggedWith tag: String) throws(StoreError) -> Set<Comic.ID> {
        try read { db in
            try Set(Int.fetchAll(db, SQLRequest<Int>(literal: "SELECT comicID FROM favouriteTag WHERE tag = \(tag)")))
        }
    }

    private func insertTags(_ tags: [String], for id: Comic.ID, in db: Database) throws -> Int {
        var added = 0
        for tag in tags {
            try db.execute(
                literal: """
                    INSERT INTO favouriteTag(comicID, tag) VALUES (\(id), \(tag)) ON CONFLICT DO NOTHING
                    """)
            added += db.changesCount
        }
        return added
    }
}
