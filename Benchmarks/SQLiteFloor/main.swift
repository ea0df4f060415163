// StartupFloor without GRDB and Foundation: a Swift process, linked as the release build is,
// that opens the index through SQLite's C interface and runs the sqlite3 shell's raw bm25
// query. `scripts/compare-sqlite3.sh` times it beside StartupFloor and `xkcd-search search`:
// the difference between the two floors is what GRDB and Foundation cost a process's start.
//
// usage: SQLiteFloor INDEX MATCH-EXPRESSION
import GRDBSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// Writes `message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    let line = message + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: SQLiteFloor INDEX MATCH-EXPRESSION", status: 2) }
var connection: OpaquePointer?
var statement: OpaquePointer?
let sql = """
    SELECT c.id, c.title, c.date FROM comicSearch s JOIN comic c ON c.id = s.rowid
    WHERE comicSearch MATCH ? ORDER BY bm25(comicSearch, 10, 5, 2, 1) LIMIT 10
    """
guard sqlite3_open_v2(arguments[1], &connection, SQLITE_OPEN_READONLY, nil) == SQLITE_OK,
    sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK,
    sqlite3_bind_text(statement, 1, arguments[2], -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) == SQLITE_OK
else {
    fail("SQLiteFloor: \(String(cString: sqlite3_errmsg(connection)))", status: 1)
}
var code = sqlite3_step(statement)
while code == SQLITE_ROW {
    print(
        sqlite3_column_int64(statement, 0), String(cString: sqlite3_column_text(statement, 1)),
        String(cString: sqlite3_column_text(statement, 2)), separator: "|")
    code = sqlite3_step(statement)
}
guard code == SQLITE_DONE else { fail("SQLiteFloor: \(String(cString: sqlite3_errmsg(connection)))", status: 1) }
sqlite3_finalize(statement)
sqlite3_close(connection)
