// The least a Swift search process can cost with this project's parts: Foundation, GRDB and
// ArgumentParser linked statically as in the release build, one read-only connection and the
// sqlite3 shell's raw bm25 query, no ranking, no snippets. `scripts/compare-sqlite3.sh` times
// it beside `xkcd-search search` and the sqlite3 shell, to show what the start-up of such a
// process costs before any of xkcd-search's own work.
//
// usage: StartupFloor INDEX MATCH-EXPRESSION
import ArgumentParser
import Foundation
import GRDB

struct StartupFloor: ParsableCommand {
    @Argument var index: String
    @Argument var match: String

    func run() throws {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: index, configuration: configuration)
        let rows = try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.id, c.title, c.date FROM comicSearch s JOIN comic c ON c.id = s.rowid
                    WHERE comicSearch MATCH ? ORDER BY bm25(comicSearch, 10, 5, 2, 1) LIMIT 10
                    """, arguments: [match])
        }
        for row in rows {
            print(row["id"] as Int, row["title"] as String, row["date"] as String, separator: "|")
        }
    }
}

StartupFloor.main()
