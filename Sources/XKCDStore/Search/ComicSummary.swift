import GRDB
import XKCDModel

/// A comic's number, title and date: what a result line shows.
public struct ComicSummary: Sendable, Hashable, Codable {
    public var id: Comic.ID
    public var title: String
    public var date: ComicDate
}

extension RawRow {
    /// The summary in columns `column` to `column + 2`: a comic's id, title and date, the way the
    /// page statements select them.
    func summary(from column: Int32) -> ComicSummary {
        ComicSummary(id: integer(column), title: text(column + 1), date: ComicRecord.date(from: text(column + 2)))
    }
}
