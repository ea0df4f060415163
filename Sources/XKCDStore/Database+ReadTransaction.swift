import GRDB
import GRDBSQLite

extension DatabaseReader {
    /// Runs `body` in one read transaction, begun and ended through SQLite itself.
    ///
    /// GRDB's `read` runs `BEGIN` and `COMMIT` through `execute(sql:)`, which compiles both on
    /// every read and stamps a transaction date; its first use in a process also has the runtime
    /// scan every protocol conformance in the binary (0.3M of a search process's 7.3M
    /// instructions). The store only reads inside, so GRDB's `query_only` guard is not needed.
    func readTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try unsafeRead { db in
            try db.executeDirectly("BEGIN DEFERRED")
            let value: T
            do {
                value = try body(db)
            } catch {
                try? db.executeDirectly("ROLLBACK")
                throw error
            }
            // A read transaction commits without writing; should it fail, the rollback still
            // leaves the connection out of the transaction.
            do {
                try db.executeDirectly("COMMIT")
            } catch {
                try? db.executeDirectly("ROLLBACK")
                throw error
            }
            return value
        }
    }
}

extension Database {
    /// Runs `sql` through `sqlite3_exec`, outside GRDB's statement bookkeeping: for statements
    /// with no rows and no arguments, which GRDB need not know of.
    func executeDirectly(_ sql: String) throws {
        let code = sqlite3_exec(sqliteConnection, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage, sql: sql)
        }
    }
}
