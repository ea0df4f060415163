import GRDB

/// How many other comics' explanations link to each comic, kept in memory for a process that
/// ranks by meaning more than once (the REPL, the server): asking the index for a search's 130
/// or so candidates was a tenth of the meaning step.
///
/// As with ``VectorCache``, the counts are kept from the second search at the same
/// ``Setting/linksVersion`` on, so a one-shot search asks only for its candidates and keeps
/// nothing; triggers raise the version with every change to `comicLink`, whichever connection
/// or process makes it, and an index without it (a read-only file of an earlier version) is
/// always asked.
final class LinkCountCache: Sendable {
    private let store = KeptFromSecondRead<String, [Int: Int]>()

    /// Whether counts are kept now.
    var isKept: Bool { store.kept != nil }

    /// Every comic's count, or nil when this search should ask for its candidates' alone.
    ///
    /// ```sql
    /// SELECT linkedID, count(*) FROM comicLink GROUP BY linkedID
    /// ```
    func counts(_ db: Database) throws -> [Int: Int]? {
        guard let version = try ComicDatabase.setting(.linksVersion, db) else { return nil }
        return try store.value(at: version) {
            var counts: [Int: Int] = [:]
            try db.cachedStatement(sql: "SELECT linkedID, count(*) FROM comicLink GROUP BY linkedID").forEachRow {
                row in counts[row.integer(0)] = row.integer(1)
            }
            return counts
        }
    }
}
