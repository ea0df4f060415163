import Foundation
import GRDB
import Testing
import XKCDModel
import _XKCDTestSupport

@testable import XKCDStore

@Suite struct RawRowTests {
    @Test func numberListsAreJSONArrays() {
        var random = SplitMix64(seed: 0x6A73_6F6E)  // "json"
        var lists: [[Int]] = [[], [0], [7, 10, 3282], [.min, -1, .max]]
        for _ in 0..<200 {
            lists.append(
                (0..<Int.random(in: 0...12, using: &random)).map { _ in
                    Int.random(in: -100_000...100_000, using: &random)
                })
        }
        for list in lists {
            #expect(jsonArray(list) == "[" + list.map(String.init).joined(separator: ",") + "]")
        }
    }

    @Test func integersAndTextAreReadAsSQLiteHoldsThem() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER, body TEXT)")
            try db.execute(sql: "INSERT INTO t VALUES (3, 'three'), (1, 'one' || char(0) || 'hidden'), (2, '')")
        }
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT id, body FROM t WHERE id >= ? ORDER BY id")
            #expect(try statement.fetchIntegers(binding: [.integer(2)]) == [2, 3])
            var rows: [String] = []
            try statement.forEachRow(binding: [.integer(1)]) { row in
                rows.append("\(row.integer(0)):\(row.text(1)):\(row.bytes(1).count)")
            }
            // Text ends at a NUL for `text`, as for a String GRDB reads; `bytes` keeps all.
            #expect(rows == ["1:one:10", "2::0", "3:three:5"])
        }
    }

    /// An error while stepping is GRDB's DatabaseError, and the statement runs again after it.
    @Test func aFailingStepThrowsAndLeavesTheStatementReusable() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.create(virtualTable: "doc", using: FTS5()) { $0.column("body") }
            try db.execute(sql: "INSERT INTO doc VALUES ('alpha beta')")
        }
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT rowid FROM doc WHERE doc MATCH ?")
            #expect(throws: DatabaseError.self) { try statement.fetchIntegers(binding: [.text("alpha AND (")]) }
            #expect(try statement.fetchIntegers(binding: [.text("alpha")]) == [1])
            #expect(try statement.fetchIntegers(binding: [.text("gamma")]) == [])
        }
    }

    /// Values are bound one for each parameter: too few or too many is an error, not a read
    /// with what the last run left bound.
    @Test func valuesMustMatchTheParameters() throws {
        let queue = try DatabaseQueue()
        try queue.read { db in
            let statement = try db.cachedStatement(sql: "SELECT ? + ?")
            #expect(try statement.fetchIntegers(binding: [.integer(2), .integer(3)]) == [5])
            #expect(throws: DatabaseError.self) { try statement.fetchIntegers(binding: [.integer(2)]) }
            #expect(throws: DatabaseError.self) {
                try statement.fetchIntegers(binding: [.integer(1), .integer(2), .integer(3)])
            }
            #expect(try statement.fetchIntegers(binding: [.integer(4), .integer(5)]) == [9])
        }
    }
}

@Suite struct StoredDateTests {
    @Test(arguments: [
        ("2007-10-10", ComicDate(year: 2007, month: 10, day: 10)),
        ("2010-3-5", ComicDate(year: 2010, month: 3, day: 5)),
        ("0001-01-01", ComicDate(year: 1, month: 1, day: 1)),
    ])
    func datesAreParsed(text: String, date: ComicDate) {
        #expect(ComicDate(iso: text) == date)
    }

    @Test(arguments: [
        "", "2007", "2007-10", "2007-10-", "-10-10", "2007--10-10", "2007-10-10-1", "2007-1O-10", " 2007-10-10",
        "1234567890-1-1",
    ])
    func anythingElseIsRefused(text: String) {
        #expect(ComicDate(iso: text) == nil)
        #expect(ComicRecord.date(from: text) == ComicDate(year: 1970, month: 1, day: 1))
    }
}
