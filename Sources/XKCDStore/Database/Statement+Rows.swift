import FoundationEssentials
import GRDB
import GRDBSQLite
import Glibc

/// Rows read straight from SQLite, for the statements a search runs over many rows.
///
/// GRDB decodes each row through generic code that looks up type metadata at run time
/// (`Int?`, `Data?`) and wraps column bytes in a `Data`: a quarter of a millisecond for a phrase
/// that a thousand comics hold. Stepping the statement here costs a tenth of that. Only reads use this; every write goes through GRDB.
extension Statement {
    /// The first column of every row, as integers.
    func fetchIntegers(binding values: [BoundValue] = []) throws -> [Int] {
        var integers: [Int] = []
        try forEachRow(binding: values) { row in integers.append(row.integer(0)) }
        return integers
    }

    /// Calls `body` with each row; the row is valid only during the call.
    ///
    /// What GRDB's cursors add is not needed by these reads: observation of the tables read,
    /// turning an interrupt into a cancellation (nothing interrupts a search), and dropping a
    /// failed statement from the cache (after the reset here it runs again). Its arguments
    /// box each value and check it against the statement, a twentieth of a one-word search;
    /// `values` are bound here, one for each parameter, in order.
    func forEachRow(binding values: [BoundValue] = [], _ body: (RawRow) throws -> Void) throws {
        let statement = sqliteStatement
        defer { sqlite3_reset(statement) }
        guard sqlite3_bind_parameter_count(statement) == CInt(values.count) else {
            throw DatabaseError(
                resultCode: .SQLITE_RANGE,
                message: "\(values.count) values for \(sqlite3_bind_parameter_count(statement)) parameters",
                sql: sql)
        }
        for (index, value) in zip(CInt(1)..., values) {
            let code =
                switch value {
                case .integer(let integer): sqlite3_bind_int64(statement, index, Int64(integer))
                // withCString: the implicit conversion copied the text into an array first.
                case .text(let text): text.withCString { sqlite3_bind_text(statement, index, $0, -1, transient) }
                }
            guard code == SQLITE_OK else { throw error(code) }
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: try body(RawRow(statement: statement))
            case SQLITE_DONE: return
            case let code: throw error(code)
            }
        }
    }

    private func error(_ code: CInt) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(sqlite3_db_handle(sqliteStatement))),
            sql: sql)
    }
}

/// A value for a statement parameter; SQLite copies a text as it binds it.
enum BoundValue {
    case integer(Int)
    case text(String)
}

/// SQLite's SQLITE_TRANSIENT, which C defines as a cast that Swift does not import.
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// The current row of a statement being stepped.
struct RawRow {
    let statement: SQLiteStatement

    func integer(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(statement, column) }

    /// The column's bytes (UTF-8 for text), valid until the statement steps again.
    func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        // Blob before bytes, as SQLite asks: the length is of the value as last converted.
        guard let base = sqlite3_column_blob(statement, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
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
