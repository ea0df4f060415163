import GRDB

/// The database schema, one migration per released change.
///
/// Favourites live in their own tables with no foreign key to `comic`, so that no re-index,
/// rebuild or reload of comics can ever delete them.
enum Schema {
    /// The identifier of the newest migration, the last that ``migrator`` registers.
    static let latestMigration = "v18-written-situations"

    /// Whether every migration has been applied. GRDB applies them in order, so the newest
    /// says it for all. Asked by every search process, so it builds no migrator: registering
    /// GRDB's migrations makes a short search process an eighth slower (docs/performance.md).
    static func isCurrent(_ db: Database) throws -> Bool {
        do {
            var applied = false
            try db.cachedStatement(sql: "SELECT 1 FROM grdb_migrations WHERE identifier = ?")
                .forEachRow(binding: [.text(latestMigration)]) { _ in applied = true }
            return applied
        } catch {
            // A file no migration ran on has no such table; anything else is an error.
            if (try? !db.tableExists("grdb_migrations")) ?? false { return false }
            throw error
        }
    }

    /// Whether xkcd-search wrote this database: its first migration is recorded. GRDB's table
    /// alone says nothing, another program using GRDB has one too.
    static func isIndex(_ db: Database) throws -> Bool {
        guard try db.tableExists("grdb_migrations") else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = 'v1')")
            ?? false
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "comic") { t in
                t.primaryKey("id", .integer)
                t.column("title", .text).notNull()
                t.column("safeTitle", .text).notNull()
                t.column("alt", .text).notNull()
                t.column("transcript", .text).notNull()
                t.column("imageURL", .text).notNull()
                t.column("link", .text).notNull()
                t.column("news", .text).notNull()
                t.column("date", .text).notNull().indexed()
                t.column("fetchedAt", .datetime).notNull()
            }
            try db.create(table: "explanation") { t in
                t.primaryKey("comicID", .integer)
                t.column("pageTitle", .text).notNull()
                t.column("explanation", .text).notNull()
                t.column("transcript", .text).notNull()
                t.column("trivia", .text).notNull()
                t.column("categories", .text).notNull()
                t.column("isIncomplete", .boolean).notNull()
                t.column("revision", .integer)
                t.column("fetchedAt", .datetime).notNull()
            }
            // What the indexer knows about each number, so that a run resumes and retries
            // exactly what is missing: "ok", "absent" (no such comic / not written yet) or "failed".
            try db.create(table: "fetchState") { t in
                t.column("comicID", .integer).notNull()
                t.column("resource", .text).notNull()
                t.column("status", .text).notNull()
                t.column("message", .text)
                t.column("attemptedAt", .datetime).notNull()
                t.primaryKey(["comicID", "resource"])
            }
            // The text that is searched, one row per comic: the best transcript and the
            // explanation with its trivia. The full-text tables below mirror it through triggers.
            try db.create(table: "searchDocument") { t in
                t.primaryKey("id", .integer)
                t.column("title", .text).notNull()
                t.column("alt", .text).notNull()
                t.column("transcript", .text).notNull()
                t.column("explanation", .text).notNull()
            }
            try createComicSearch(db, prefixes: nil)
            // Unstemmed twin of comicSearch: finds the exact word forms the user typed, for
            // ranking ("running" above "run") and for spelling suggestions (v6 drops it: the
            // ranking index took both over).
            try db.create(virtualTable: "comicExact", using: FTS5()) { t in
                t.synchronize(withTable: "searchDocument")
                t.tokenizer = .unicode61(diacritics: .remove)
                t.column("title")
                t.column("alt")
                t.column("transcript")
                t.column("explanation")
            }
            try db.execute(sql: "CREATE VIRTUAL TABLE comicVocabulary USING fts5vocab(comicExact, row)")
            try db.create(table: "favourite") { t in
                t.primaryKey("comicID", .integer)
                t.column("addedAt", .datetime).notNull()
            }
            try db.create(table: "favouriteTag") { t in
                t.column("comicID", .integer).notNull()
                    .references("favourite", onDelete: .cascade)
                t.column("tag", .text).notNull().indexed()
                t.primaryKey(["comicID", "tag"])
            }
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2-ranking") { db in
            try db.create(table: "rankingTerm", options: .withoutRowID) { t in
                t.primaryKey("term", .text)
                t.column("documentCount", .integer).notNull()
                t.column("postings", .blob).notNull()
            }
            try db.create(table: "rankingData") { t in
                t.primaryKey("name", .text)
                t.column("value", .blob).notNull()
            }
            // Exact word forms with their document counts, for spelling suggestions: a B-tree
            // range scan is far faster than one over fts5vocab.
            try db.create(table: "spellingTerm", options: .withoutRowID) { t in
                t.primaryKey("term", .text)
                t.column("documentCount", .integer).notNull()
            }
            try RankingIndex.rebuild(db)
        }
        // Without a prefix index FTS5 answers `res*` by merging the doclists of every indexed
        // word starting so: 5 ms for "res*", 1 ms for "int*". The index of the first two to four
        // characters of every token answers prefixes of those lengths, the ones people type, in
        // a tenth of that, for a full-text index about three times as large (9 MB to 26 MB).
        migrator.registerMigration("v3-prefix-index") { db in
            try db.drop(table: "comicSearch")
            try db.dropFTS5SynchronizationTriggers(forTable: "comicSearch")
            try createComicSearch(db, prefixes: [2, 3, 4])
            // The rebuild leaves about ten segments, and every query reads each: a phrase took
            // 30 us longer than from the one segment the indexer leaves.
            try db.execute(sql: "INSERT INTO comicSearch(comicSearch) VALUES('optimize')")
        }
        // Spelling candidates are the words sharing two first letters within a length range.
        // By `term` alone that range is every word with those letters (1,700 for "co", half of
        // them of the wrong length), each read from the table for its count: most of a typo
        // query. This index holds exactly those columns, in that order.
        migrator.registerMigration("v4-spelling-shape") { db in
            try db.execute(
                sql: """
                    CREATE INDEX spellingTermShape ON spellingTerm(substr(term, 1, 2), length(term), documentCount)
                    """)
        }
        // Field lengths stored as fixed-width integers rather than varints
        // (``DocumentLengths/blob(lengths:documentCount:)``): rebuilt from the documents, the
        // one place that format is written.
        migrator.registerMigration("v5-fixed-lengths") { db in
            try RankingIndex.rebuild(db)
        }
        // The unstemmed full-text twin of v1 went unread once the ranking index kept the exact
        // word forms, yet every document was indexed into it a second time (10 MB of the
        // file), and every connection parsed its nine schema entries.
        migrator.registerMigration("v6-no-exact-table") { db in
            try db.dropFTS5SynchronizationTriggers(forTable: "comicExact")
            try db.drop(table: "comicVocabulary")
            try db.drop(table: "comicExact")
        }
        // Spelling candidates are read as one blob per two first letters
        // (``RankingIndex/writeSpellingBuckets(_:words:)``) instead of row by row through the
        // index of v4, which is dropped. The ranking index is rebuilt, which fills the blobs:
        // an index an earlier version left with its ranking data behind its documents (a run
        // stopped before the rebuild, which it did not mark) is then current too.
        migrator.registerMigration("v7-spelling-buckets") { db in
            try db.create(table: "spellingBucket", options: .withoutRowID) { t in
                t.primaryKey("prefix", .text)
                t.column("words", .blob).notNull()
            }
            try db.execute(sql: "DROP INDEX spellingTermShape")
            try RankingIndex.rebuild(db)
        }
        // The comics each explanation links to (``ComicDatabase/linkedComics(of:)``), written with
        // the explanation. The explanations an earlier version stored were parsed without their
        // links: the next run of the indexer parses them again from the kept responses
        // (``ComicDatabase/explanationsNeedParsingAgain()``).
        migrator.registerMigration("v8-comic-links") { db in
            try db.create(table: "comicLink", options: .withoutRowID) { t in
                t.column("comicID", .integer).notNull()
                t.column("linkedID", .integer).notNull()
                t.primaryKey(["comicID", "linkedID"])
            }
            try db.create(index: "comicLinkByLinked", on: "comicLink", columns: ["linkedID", "comicID"])
            try db.execute(
                sql: """
                    INSERT INTO setting(key, value) SELECT '\(Setting.explanationsNeedParsing.rawValue)', 'comic links'
                    WHERE EXISTS (SELECT 1 FROM explanation)
                    """)
        }
        // Sentence vectors of each comic's text, for finding comics described in other words
        // than their own. Each row says which model made it and from which text, so that the
        // indexer embeds again only what changed. Filled by the indexer, not here: embedding
        // every comic takes minutes.
        migrator.registerMigration("v9-comic-vectors") { db in
            try db.create(table: "comicVector") { t in
                t.column("comicID", .integer).notNull()
                t.column("passage", .integer).notNull()
                t.column("model", .text).notNull()
                t.column("textDigest", .text).notNull()
                t.column("vector", .blob).notNull()
                t.primaryKey(["comicID", "passage"])
            }
        }
        // Words with symbols (`c++`, `AT&T`) kept whole in the ranking index (``SymbolWords``).
        migrator.registerMigration("v10-symbol-words") { db in
            try RankingIndex.rebuild(db)
        }
        // A perceptual hash of each comic's image, for finding a comic from a copy of its
        // picture (`identify`), kept with the image URL it was made from. Filled by the indexer
        // from the image cache (`index --images`).
        migrator.registerMigration("v11-image-hashes") { db in
            try db.create(table: "imageHash") { t in
                t.primaryKey("comicID", .integer)
                t.column("imageURL", .text).notNull()
                t.column("hash", .integer).notNull()
            }
        }
        // Several hashes a comic: its whole image's, its panels' and those of an animation's
        // later frames (``PerceptualHash/hashes(of:)``), so that a crop or a screenshot is found
        // too. The next `index --images` hashes every kept image again.
        migrator.registerMigration("v12-image-part-hashes") { db in
            try db.drop(table: "imageHash")
            try db.create(table: "imageHash") { t in
                t.column("comicID", .integer).notNull()
                t.column("imageURL", .text).notNull()
                t.column("hash", .integer).notNull()
                t.primaryKey(["comicID", "hash"])
            }
        }
        // A version of the sentence vectors that every insert, update and delete raises, by
        // triggers, so that whatever writes them (this process, another, or another program)
        // tells a process that keeps them in memory (``VectorCache``) to read them again.
        migrator.registerMigration("v13-vectors-version") { db in
            try raiseVersion(.vectorsVersion, onEveryChangeTo: "comicVector", db)
        }
        // Each spelling word kept under its first and third letters too (``SpellingBucket``), so
        // that a misspelling missing its second letter ("wrkflow") is corrected. Regrouped from
        // the words the index holds; the ranking index itself does not change.
        migrator.registerMigration("v14-spelling-first-and-third") { db in
            try RankingIndex.regroupSpellingWords(db)
        }
        // The same for the links between comics: their counts kept in memory (``LinkCountCache``)
        // are read again after any change.
        migrator.registerMigration("v15-links-version") { db in
            try raiseVersion(.linksVersion, onEveryChangeTo: "comicLink", db)
        }
        // Passages people wrote about a situation of their own, each with the comic they linked
        // to it (``LinkedPassage``), and each one's sentence vector once the indexer has made it
        // (`model` and `vector` stay NULL until then): `relevant` lifts the comics linked to
        // passages like the one it is given. Filled by `index --linked-passages`.
        migrator.registerMigration("v16-linked-passages") { db in
            try db.create(table: "linkedPassage") { t in
                t.primaryKey("id", .integer)
                t.column("comicID", .integer).notNull()
                t.column("text", .text).notNull()
                t.column("source", .text).notNull()
                t.column("model", .text)
                t.column("vector", .blob)
                t.uniqueKey(["comicID", "text"])
            }
        }
        // The same for the linked passages kept in memory (``LinkedPassageCache``): `relevant`
        // reads only those linked to a comic the index holds, so comics added or removed count
        // as a change too.
        migrator.registerMigration("v17-linked-passages-version") { db in
            try raiseVersion(.linkedPassagesVersion, onEveryChangeTo: "linkedPassage", named: true, db)
            // Not on an update: each index run rewrites the comics it fetched, which changes no
            // comic's number.
            try raiseVersion(
                .linkedPassagesVersion, onEveryChangeTo: "comic", changes: ["INSERT", "DELETE"], named: true, db)
        }
        // Situations written for each comic (``LinkedPassage/isWritten``) are kept beside the
        // passages people linked, and lift a comic by a weight of their own.
        migrator.registerMigration(latestMigration) { db in
            try db.alter(table: "linkedPassage") { t in
                t.add(column: "written", .boolean).notNull().defaults(to: false)
            }
        }
        return migrator
    }

    /// Adds `version` to the settings at 0 and triggers that raise it by one for every row
    /// inserted into, updated in or deleted from `table` (or the `changes` given).
    ///
    /// A trigger is named after its table and change (`comicLinkInsertRaisesVersion`), and, when
    /// `named`, after its version too (`comicInsertRaisesLinkedPassagesVersion`), so that one
    /// table may raise several versions; v13's and v15's keep the names they were made with.
    private static func raiseVersion(
        _ version: Setting, onEveryChangeTo table: String, changes: [String] = ["INSERT", "UPDATE", "DELETE"],
        named: Bool = false, _ db: Database
    ) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO setting(key, value) VALUES ('\(version.rawValue)', '0')")
        let raised = named ? version.rawValue.prefix(1).uppercased() + version.rawValue.dropFirst() : "Version"
        for change in changes {
            let name = change.prefix(1) + change.dropFirst().lowercased()
            try db.execute(
                sql: """
                    CREATE TRIGGER \(table)\(name)Raises\(raised) AFTER \(change) ON \(table)
                    BEGIN
                      UPDATE setting SET value = CAST(value AS INTEGER) + 1 WHERE key = '\(version.rawValue)';
                    END
                    """)
        }
    }

    /// The stemmed full-text table over `searchDocument`, filled from it.
    private static func createComicSearch(_ db: Database, prefixes: Set<Int>?) throws {
        try db.create(virtualTable: "comicSearch", using: FTS5()) { t in
            t.synchronize(withTable: "searchDocument")
            t.tokenizer = .porter(wrapping: .unicode61(diacritics: .remove))
            t.prefixes = prefixes
            t.column("title")
            t.column("alt")
            t.column("transcript")
            t.column("explanation")
        }
    }
}
