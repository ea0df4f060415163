import Foundation
import GRDB
import GRDBSQLite

/// Rows read straight from SQLite, for the statements a search runs over many rows.
///
/// GRDB decodes each row through generic code that looks up type metadata at run time
/// (`Int?`, `Data?`) and wraps column bytes in a `Data`: about 800 instructions a row, a
/// quarter of a millisecond for a phrase that a thousand comics hold. Stepping the statement
/// here costs a tenth of that. Only reads use this; every write goes through GRDB.
extension Statement {
    /// The first column of every row, as integers.
    func fetchIntegers(arguments: StatementArguments = StatementArguments()) throws -> [Int] {
        var values: [Int] = []
        try forEachRow(arguments: arguments) { row in values.append(row.integer(0)) }
        return values
    }

    /// Calls `body` with each row; the row is valid only during the call.
    ///
    /// What GRDB's cursors add is not needed by these reads: observation of the tables read,
    /// turning an interrupt into a cancellation (nothing interrupts a search), and dropping a
    /// failed statement from the cache (after the reset here it runs again).
    func forEachRow(arguments: StatementArguments, _ body: (RawRow) throws -> Void) throws {
        try setArguments(arguments)
        defer { sqlite3_reset(sqliteStatement) }
        while true {
            switch sqlite3_step(sqliteStatement) {
            case SQLITE_ROW: try body(RawRow(statement: sqliteStatement))
            case SQLITE_DONE: return
            case let code:
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(sqlite3_db_handle(sqliteStatement))), sql: sql)
            }
        }
    }
}

/// The current row of a statement being stepped.
struct RawRow {
    let statement: SQLiteStatement

    func integer(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }

    /// The column's bytes (UTF-8 for text), valid until the statement steps again.
    func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        // Blob before bytes, as SQLite asks: the length is of the value as last converted.
        guard let base = sqlite3_column_blob(statement, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// The column's text up to its first NUL, as a String read from SQLite ends.
    func textBytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let bytes = bytes(column)
        guard let base = bytes.baseAddress, let nul = memchr(base, 0, bytes.count) else { return bytes }
        return UnsafeRawBufferPointer(rebasing: bytes[..<(UnsafeRawPointer(nul) - base)])
    }

    func text(_ column: Int32) -> String { String(decoding: textBytes(column), as: UTF8.self) }
}
