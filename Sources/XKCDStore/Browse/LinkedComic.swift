import XKCDModel

/// A comic linked to or from another one's explanation (``ComicDatabase/linkedComics(of:)``).
public struct LinkedComic: Sendable, Hashable {
    public var id: Comic.ID
    public var title: String
    public var date: ComicDate
    /// The explanation of the comic asked about links to this one.
    public var isOutgoing: Bool
    /// This comic's explanation links to the comic asked about.
    public var isIncoming: Bool
}
