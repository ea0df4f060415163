import GRDB
import XKCDModel

extension ComicDatabase.SearchView {
    /// The comics allowed by the query's number, date, favourite and tag filters, or nil when it
    /// has none (every comic is allowed).
    public func comicIDs(passingFiltersOf query: SearchQuery) throws(StoreError) -> Set<Comic.ID>? {
        try comicIDs(passingFiltersOf: query, ordered: .numberAscending).map(Set.init)
    }

    /// The comics allowed by the query's filters in `order`, or nil when it has none.
    ///
    /// One statement, its text fixed by which filters are present so that it is prepared once:
    /// ```sql
    /// SELECT id FROM comic WHERE date >= ? AND date <= ? ORDER BY date, id
    /// ```
    public func comicIDs(passingFiltersOf query: SearchQuery, ordered order: SearchSort) throws(StoreError) -> [Comic
        .ID]?
    {
        var conditions: [String] = []
        var arguments: [BoundValue] = []
        if let lower = query.numberRange?.lower {
            conditions.append("id >= ?")
            arguments.append(.integer(lower))
        }
        if let upper = query.numberRange?.upper {
            conditions.append("id <= ?")
            arguments.append(.integer(upper))
        }
        // Dates are kept as `YYYY-MM-DD` text, which sorts as dates only for years of four
        // digits: a bound past them (`after:9999` starts in 10000) is said without the text.
        if let lower = query.dateRange?.lower {
            if lower.year > 9999 {
                conditions.append("0")
            } else {
                conditions.append("date >= ?")
                arguments.append(.text(lower.description))
            }
        }
        if let upper = query.dateRange?.upper {
            if upper.year < 1 {
                conditions.append("0")
            } else if upper.year <= 9999 {
                conditions.append("date <= ?")
                arguments.append(.text(upper.description))
            }
        }
        if query.isFavourite || !query.tags.isEmpty {
            conditions.append("id IN (SELECT comicID FROM favourite)")
        }
        for tag in query.tags {
            conditions.append("id IN (SELECT comicID FROM favouriteTag WHERE tag = ?)")
            arguments.append(.text(tag.lowercased()))
        }
        guard !conditions.isEmpty else { return nil }
        let sql = "SELECT id FROM comic WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(orderSQL(order))"
        return try wrapped { try db.cachedStatement(sql: sql).fetchIntegers(binding: arguments) }
    }

    /// Every comic's number in `order`, for a query made only of a sort.
    public func comicIDs(ordered order: SearchSort) throws(StoreError) -> [Comic.ID] {
        try wrapped { try db.cachedStatement(sql: "SELECT id FROM comic ORDER BY \(orderSQL(order))").fetchIntegers() }
    }

    private func orderSQL(_ order: SearchSort) -> String {
        switch order {
        case .relevance, .dateAscending: "date, id"
        case .dateDescending: "date DESC, id DESC"
        case .numberAscending: "id"
        case .numberDescending: "id DESC"
        }
    }
}
