import GRDB
import XKCDModel

extension ComicDatabase {
    /// The indexed comics that `id`'s explanation links to or whose explanations link to `id`,
    /// by number; the comic itself is never among them.
    ///
    /// ```sql
    /// SELECT c.id, c.title, c.date, EXISTS(…) AS isOutgoing, EXISTS(…) AS isIncoming
    /// FROM comic c WHERE c.id IN (SELECT linkedID FROM comicLink WHERE comicID = :id
    ///                             UNION SELECT comicID FROM comicLink WHERE linkedID = :id)
    /// ```
    package func linkedComics(of id: Comic.ID) throws(StoreError) -> [LinkedComic] {
        try read { db in
            try Row.fetchAll(
                db,
                SQLRequest<Row>(
                    literal: """
                        SELECT c.id, c.title, c.date,
                               EXISTS (SELECT 1 FROM comicLink WHERE comicID = \(id) AND linkedID = c.id) AS isOutgoing,
                               EXISTS (SELECT 1 FROM comicLink WHERE comicID = c.id AND linkedID = \(id)) AS isIncoming
                        FROM comic c
                        WHERE c.id IN (SELECT linkedID FROM comicLink WHERE comicID = \(id)
                                       UNION SELECT comicID FROM comicLink WHERE linkedID = \(id))
                          AND c.id <> \(id)
                        ORDER BY c.id
                        """)
            ).map { row in
                LinkedComic(
                    id: row["id"], title: row["title"], date: ComicRecord.date(from: row["date"]),
                    isOutgoing: row["isOutgoing"], isIncoming: row["isIncoming"])
            }
        }
    }

    /// Whether explanations stored by an earlier version must be parsed again (from the kept
    /// responses or a mirror) for what this version keeps of them: the index was made before
    /// the links between comics were kept. ``markExplanationsParsed()`` clears it.
    package func explanationsNeedParsingAgain() throws(StoreError) -> Bool {
        try setting(.explanationsNeedParsing) != nil
    }

    /// Records that every stored explanation was parsed by this version.
    package func markExplanationsParsed() throws(StoreError) {
        try removeSetting(.explanationsNeedParsing)
    }

    /// The numbers of the comics with a stored explanation, ascending.
    package func explainedComicIDs() throws(StoreError) -> [Comic.ID] {
        try read { db in try Int.fetchAll(db, sql: "SELECT comicID FROM explanation ORDER BY comicID") }
    }

    /// Replaces the links of `id`'s explanation; a link to itself is left out.
    func replaceLinks(from id: Comic.ID, to linked: [Comic.ID], in db: Database) throws {
        try db.execute(literal: "DELETE FROM comicLink WHERE comicID = \(id)")
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO comicLink(comicID, linkedID) VALUES (?, ?)")
        for other in linked where other != id {
            try insert.execute(arguments: [id, other])
        }
    }
}
