import GRDB
import GRDBSQLite

extension DatabaseReader {
    /// Runs `body` in one read transaction, begun and ended through SQLite itself.
    ///
    /// GRDB's `read` runs `BEGIN` and `COMMIT` through `execute(sql:)`, which compiles both on
    /// every read and stamps a transaction date; its first use in a process also has the runtime
    /// scan every protocol conformance in the binary (0.3M of a search process's 7.3M
    /// instructions).
    ///
    /// What GRDB's `read` does and this does not:
    /// - refuse writes (`PRAGMA query_only`) on a writable connection: the store only reads here;
    /// - on a pool, check the schema version inside the transaction: `unsafeRead` checks it just
    ///   before, so a schema changed in between is seen by the next read;
    /// - track the transaction for `Database.transactionDate`, which the store does not use.
    func readTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try unsafeRead { db in
            try db.executeDirectly("BEGIN DEFERRED")
            let value: T
            do {
                value = try body(db)
            } catch {
                db.endTransactionIfOpen()
                throw error
            }
            // SQLite may have ended the transaction itself (after an I/O error or an interrupt
            // the body got past): there is nothing to commit then.
            guard db.isInsideTransaction else { return value }
            do {
                try db.executeDirectly("COMMIT")
            } catch {
                db.endTransactionIfOpen()
                throw error
            }
            return value
        }
    }
}

extension Database {
    /// Rolls back the transaction if one is still open, so that the connection is left out of it
    /// whatever failed.
    fileprivate func endTransactionIfOpen() {
        if isInsideTransaction { try? executeDirectly("ROLLBACK") }
    }

    /// Runs `sql` through `sqlite3_exec`, outside GRDB's statement bookkeeping: for statements
    /// with no rows and no arguments, which GRDB need not know of.
    func executeDirectly(_ sql: String) throws {
        let code = sqlite3_exec(sqliteConnection, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage, sql: sql)
        }
    }
}
