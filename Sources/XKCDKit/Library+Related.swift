import XKCDModel
import XKCDStore

/// A comic related to another one, and why.
public struct RelatedComic: Sendable, Hashable {
    /// Why a comic is related; a comic may be related for several reasons.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// The explanation of the comic asked about links to this one.
        case linksTo = "links to"
        /// This comic's explanation links to the comic asked about.
        case linkedFrom = "linked from"
    }

    public var id: Comic.ID
    public var title: String
    public var date: ComicDate
    /// In the order of ``Reason``'s cases.
    public var reasons: [Reason]

    public init(id: Comic.ID, title: String, date: ComicDate, reasons: [Reason]) {
        self.id = id
        self.title = title
        self.date = date
        self.reasons = reasons
    }
}

/// The comics related to one comic (``Library/related(_:)``).
public struct RelatedComics: Sendable, Hashable {
    /// The comic asked about.
    public var comic: Comic
    /// Comics with more reasons first (linked both ways before one way), then by number.
    public var related: [RelatedComic]
}

extension Library {
    /// The comics `reference`'s explanation links to and those whose explanations link to it.
    ///
    /// ```swift
    /// let related = try library.related(.number(327)).related
    /// // [RelatedComic(id: 10, title: "Pi Equals", …, reasons: [.linksTo, .linkedFrom]), …]
    /// ```
    /// - Parameter reference: nil means the comic shown last, which stays the one shown last.
    public func related(_ reference: ComicReference?) throws -> RelatedComics {
        let id = try resolve(reference)
        guard let comic = try database.comic(id) else { throw LibraryError.notIndexed(id) }
        let related = try database.linkedComics(of: id).map { linked in
            RelatedComic(
                id: linked.id, title: linked.title, date: linked.date,
                reasons: (linked.isOutgoing ? [.linksTo] : []) + (linked.isIncoming ? [.linkedFrom] : []))
        }
        return RelatedComics(comic: comic, related: Self.ordered(related))
    }

    /// More reasons first, then a lower number: a total order, whatever reasons come to exist.
    static func ordered(_ related: [RelatedComic]) -> [RelatedComic] {
        related.sorted { ($1.reasons.count, $0.id) < ($0.reasons.count, $1.id) }
    }
}
