import FoundationEssentials
import GRDB
let db = try DatabaseQueue()
try db.write { try $0.execute(sql: "CREATE TABLE t(a INTEGER); INSERT INTO t VALUES (42)") }
let v = try db.read { try Int.fetchOne($0, sql: "SELECT a FROM t") }
print(v ?? 0, Date())
