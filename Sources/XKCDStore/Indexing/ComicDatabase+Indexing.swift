import FoundationEssentials
import GRDB
import XKCDModel

extension ComicDatabase {
    /// Explanations fetched within this long of their comic's date are fetched again, since
    /// the wiki changes them most in the first days.
    public static let freshExplanationWindow: TimeInterval = 14 * 24 * 3600
    /// An explanation that may still change is fetched again at most this often.
    public static let explanationRecheckInterval: TimeInterval = 24 * 3600

    /// Works out what to ask for so that the index covers every comic up to `latest`.
    ///
    /// A comic is asked for when it is not stored and not known to be absent (#404). An
    /// explanation is settled when it is stored, complete and was fetched more than two weeks
    /// after its comic's date. Any other is asked for again, but at most once in
    /// ``explanationRecheckInterval`` (before `now`) since it was last asked for with an answer
    /// (a page, or none yet): an incomplete page may stay so for years, and a comic may wait
    /// weeks for its page, so asking for each of them on every run made a run with nothing new
    /// slow. The last asking is the run's own time (`attemptedAt` of ``apply(_:attemptedAt:)``),
    /// not the response's date, which for a mirror is its file's age. One that failed last time
    /// is asked for on the next run.
    public func plan(upTo latest: Comic.ID, now: Date = Date()) throws(StoreError) -> IndexPlan {
        try read { db in
            let storedComics = try Set(Int.fetchAll(db, sql: "SELECT id FROM comic"))
            let absentComics = try Set(
                Int.fetchAll(
                    db,
                    sql: """
                        SELECT comicID FROM fetchState WHERE resource = 'comic' AND status = 'absent'
                        """))
            let settledExplanations = try Set(
                Int.fetchAll(
                    db,
                    sql: """
                        SELECT e.comicID FROM explanation e JOIN comic c ON c.id = e.comicID
                        WHERE NOT e.isIncomplete AND julianday(e.fetchedAt) - julianday(c.date) > ?
                        UNION
                        SELECT comicID FROM fetchState
                        WHERE resource = 'explanation' AND status IN ('ok', 'absent')
                          AND julianday(?) - julianday(attemptedAt) < ?
                        """,
                    arguments: [
                        ComicDatabase.freshExplanationWindow / 86400, now,
                        ComicDatabase.explanationRecheckInterval / 86400,
                    ]))
            guard latest >= 1 else { return IndexPlan(comics: [], explanations: []) }
            let all = 1...latest
            let comics = all.filter { !storedComics.contains($0) && !absentComics.contains($0) }
            let explanations = all.filter { !settledExplanations.contains($0) && !absentComics.contains($0) }
            return IndexPlan(comics: comics, explanations: explanations)
        }
    }

    /// Stores a batch of updates in one transaction, so that a killed process leaves either all
    /// of the batch or none of it. `attemptedAt` is when the run asked: what ``plan(upTo:now:)``
    /// counts a day from.
    package func apply(_ updates: [ComicUpdate], attemptedAt: Date = Date()) throws(StoreError) {
        try write { db in
            for update in updates {
                try apply(update, attemptedAt: attemptedAt, in: db)
            }
            try refreshSearchDocuments(db, ids: updates.map(\.id))
        }
    }

    private func apply(_ update: ComicUpdate, attemptedAt: Date, in db: Database) throws {
        switch update.comic {
        case .unchanged: break
        case .fetched(let comic, let date):
            try ComicRecord(comic, fetchedAt: date).upsert(db)
            try setState(db, update.id, "comic", "ok", nil, attemptedAt)
        case .absent:
            try setState(db, update.id, "comic", "absent", nil, attemptedAt)
        case .failed(let message):
            try setState(db, update.id, "comic", "failed", message, attemptedAt)
        }
        switch update.explanation {
        case .unchanged: break
        case .fetched(let explanation, let date):
            try ExplanationRecord(explanation, fetchedAt: date).upsert(db)
            try replaceLinks(from: update.id, to: explanation.page.linkedComics, in: db)
            try setState(db, update.id, "explanation", "ok", nil, attemptedAt)
        case .absent:
            try setState(db, update.id, "explanation", "absent", nil, attemptedAt)
        case .failed(let message):
            try setState(db, update.id, "explanation", "failed", message, attemptedAt)
        }
    }

    private func setState(
        _ db: Database, _ id: Int, _ resource: String, _ status: String, _ message: String?, _ date: Date
    ) throws {
        try FetchStateRecord(comicID: id, resource: resource, status: status, message: message, attemptedAt: date)
            .upsert(db)
    }

    /// Rewrites the searchable text of the given comics from their stored rows (comics not
    /// stored are skipped); the full-text triggers follow.
    ///
    /// The explain xkcd transcript wins over the JSON one when it is not empty: the JSON's stop
    /// at about #1608, and some belong to a neighbouring comic. The explanation is followed by
    /// the trivia, after a blank line, when there is any.
    ///
    /// One statement for the whole batch: FTS5 flushes its pending terms into a new segment at
    /// every statement savepoint, so a statement per comic would leave one tiny segment each.
    private func refreshSearchDocuments(_ db: Database, ids: [Int]) throws {
        guard !ids.isEmpty else { return }
        try db.execute(
            sql: """
                INSERT INTO searchDocument(id, title, alt, transcript, explanation)
                SELECT c.id, c.title, c.alt,
                       CASE WHEN coalesce(e.transcript, '') <> '' THEN e.transcript ELSE c.transcript END,
                       coalesce(e.explanation, '')
                         || CASE WHEN coalesce(e.trivia, '') <> '' THEN char(10, 10) || e.trivia ELSE '' END
                FROM comic c LEFT JOIN explanation e ON e.comicID = c.id
                WHERE c.id IN (SELECT value FROM json_each(?))
                ORDER BY c.id
                ON CONFLICT(id) DO UPDATE SET
                    title = excluded.title, alt = excluded.alt,
                    transcript = excluded.transcript, explanation = excluded.explanation
                """,
            arguments: [jsonArray(ids)])
        // In the same transaction: the ranking index no longer holds these documents as they are.
        // This is where the store writes documents, so no write of its own misses the mark. A
        // new value each time: the ranking cache is keyed by it, and two stale spells must
        // not share cached lengths.
        try db.execute(
            sql: """
                UPDATE setting SET value = '\(DocumentLengths.stalePrefix)' || hex(randomblob(16)) WHERE key = '\(Setting.rankingGeneration.rawValue)'
                """)
    }

    /// Re-creates the full-text index from the stored documents.
    package func rebuildFullTextIndex() throws(StoreError) {
        try write { db in
            try db.execute(sql: "INSERT INTO comicSearch(comicSearch) VALUES('rebuild')")
        }
    }

    /// Merges the full-text b-trees into one segment: smaller file, faster queries.
    /// Rewrites the file without its free pages, and checkpoints the write-ahead log into it:
    /// after a rebuild, which rewrites every row, a quarter of the file was free pages.
    package func vacuum() throws(StoreError) {
        try wrapped {
            try writer.vacuum()
            try writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
    }

    package func optimizeFullTextIndex() throws(StoreError) {
        try write { db in
            try db.execute(sql: "INSERT INTO comicSearch(comicSearch) VALUES('optimize')")
        }
    }

    /// Runs SQLite's and FTS5's integrity checks; returns the problems found (empty when sound).
    package func integrityProblems() throws(StoreError) -> [String] {
        // FTS5 runs its check as an INSERT of a command row, which read-only connections refuse.
        try write { db in
            var problems = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            do {
                try db.execute(sql: "INSERT INTO comicSearch(comicSearch, rank) VALUES('integrity-check', 1)")
            } catch {
                problems.append("comicSearch: \(error)")
            }
            return problems
        }
    }

    /// The comics whose last attempt failed, with the reason.
    public func failures() throws(StoreError) -> [IndexFailure] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT comicID, resource, message FROM fetchState WHERE status = 'failed' ORDER BY comicID
                    """
            ).map { IndexFailure(id: $0["comicID"], resource: $0["resource"], message: $0["message"] ?? "") }
        }
    }

    /// Ids of the comics stored, in ascending order.
    public func comicIDs() throws(StoreError) -> [Comic.ID] {
        try read { db in try Int.fetchAll(db, sql: "SELECT id FROM comic ORDER BY id") }
    }
}
