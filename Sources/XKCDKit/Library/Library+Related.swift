import Logging
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
        /// This comic's text is among the nearest in meaning to the comic's (by their vectors).
        case similar
    }

    /// The related comic's number.
    public var id: Comic.ID
    /// The related comic's title.
    public var title: String
    /// When the related comic was published.
    public var date: ComicDate
    /// In the order of ``Reason``'s cases.
    public var reasons: [Reason]
    /// The cosine similarity of the two comics' vectors, for a comic related by ``Reason/similar``.
    public var similarity: Double?

    /// A related comic, as ``Library/related(_:)`` finds it.
    ///
    /// - Parameters:
    ///   - id: the related comic's number.
    ///   - title: its title.
    ///   - date: when it was published.
    ///   - reasons: why it is related, in the order of ``Reason``'s cases.
    ///   - similarity: the cosine similarity of the two comics' vectors, when it is
    ///     ``Reason/similar``.
    public init(id: Comic.ID, title: String, date: ComicDate, reasons: [Reason], similarity: Double? = nil) {
        self.id = id
        self.title = title
        self.date = date
        self.reasons = reasons
        self.similarity = similarity
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
    /// How many of the comics nearest in meaning ``related(_:)`` lists.
    public static let similarComicCount = 5

    /// The comics `reference`'s explanation links to, those whose explanations link to it, and
    /// the ``similarComicCount`` nearest to it in meaning.
    ///
    /// ```swift
    /// let related = try library.related(.number(327)).related
    /// // [RelatedComic(id: 10, title: "Pi Equals", …, reasons: [.linksTo, .linkedFrom]), …]
    /// ```
    ///
    /// - Parameter reference: nil means the comic shown last, which stays the one shown last.
    /// - Returns: the comic and those related to it, the most related first.
    /// - Throws: what ``resolve(_:)`` throws; `StoreError` when the index cannot be read.
    public func related(_ reference: ComicReference?) throws -> RelatedComics {
        let id = try resolve(reference)
        guard let comic = try database.comic(id) else { throw LibraryError.notIndexed(id) }
        var related = try database.linkedComics(of: id).map { linked in
            RelatedComic(
                id: linked.id, title: linked.title, date: linked.date,
                reasons: (linked.isOutgoing ? [.linksTo] : []) + (linked.isIncoming ? [.linkedFrom] : []))
        }
        for near in try database.nearestComics(to: id, limit: Self.similarComicCount) {
            if let index = related.firstIndex(where: { $0.id == near.id }) {
                related[index].reasons.append(.similar)
                related[index].similarity = Double(near.similarity)
            } else {
                related.append(
                    RelatedComic(
                        id: near.id, title: near.title, date: near.date, reasons: [.similar],
                        similarity: Double(near.similarity)))
            }
        }
        logger.info(
            "#\(id): \(related.filter { $0.reasons != [.similar] }.count) linked comics, \(related.filter { $0.reasons.contains(.similar) }.count) near in meaning"
        )
        return RelatedComics(comic: comic, related: Self.ordered(related))
    }

    /// Linked both ways first, then one way, then similar in meaning alone; among equals the
    /// more similar first, then a lower number: a total order.
    static func ordered(_ related: [RelatedComic]) -> [RelatedComic] {
        func links(_ comic: RelatedComic) -> Int { comic.reasons.filter { $0 != .similar }.count }
        return related.sorted { a, b in
            (links(b), b.similarity ?? 0, a.id) < (links(a), a.similarity ?? 0, b.id)
        }
    }
}
