import XKCDFiles

/// One comic, by number, `latest` or `random`: `show`, `GET /api/comics/{comic}` and the page's
/// `/{comic}`.
public struct ComicRequest: Sendable, Hashable {
    /// The comic as named; nil is the comic shown last.
    public var comic: ComicReference?
    /// Whether the answer carries explain xkcd's explanation (`?explain=1`).
    public var withExplanation: Bool

    /// The request for a comic as the user typed it.
    ///
    /// - Parameters:
    ///   - comic: the comic as typed: `327`, `#327`, `latest`, `random` or its address; nil for
    ///     the comic shown last.
    ///   - withExplanation: whether the answer carries the explanation.
    /// - Throws: ``LibraryError/notANumber(_:)`` or ``LibraryError/belowFirst(_:)``.
    public init(comic: String?, withExplanation: Bool = false) throws(LibraryError) {
        self.comic = try comic.map { text throws(LibraryError) in try ComicReference(parsing: text) }
        self.withExplanation = withExplanation
    }

    /// The request a route gives: the comic from its path, `explain` from its query.
    ///
    /// - Parameters:
    ///   - comic: the comic as the path names it.
    ///   - parameters: the query's parameters.
    /// - Throws: what ``init(comic:withExplanation:)`` throws, and ``RequestError`` for an
    ///   `explain` that is no flag.
    public init(comic: String, reading parameters: some RequestParameters) throws {
        try self.init(comic: comic, withExplanation: try parameters.flag(.explain))
    }

    /// Everything about the comic; remembered as the comic shown last.
    ///
    /// - Parameter index: the index to read.
    /// - Returns: the comic, its explanation, transcript and favourite entry.
    /// - Throws: ``LibraryError`` for a comic the index does not hold.
    public func run(in index: OpenIndex) throws -> ComicPage {
        try index.library.show(comic)
    }

    /// The comic's page as the API answers it.
    ///
    /// - Parameter index: the index to read.
    /// - Returns: the document, with the explanation when ``withExplanation`` asks for it.
    /// - Throws: what ``run(in:)`` throws.
    public func document(in index: OpenIndex) throws -> ComicDocument {
        ComicDocument(page: try run(in: index), withExplanation: withExplanation)
    }
}

/// The comics related to one: `related`, `GET /api/comics/{comic}/related` and the comic page's
/// list.
public struct RelatedRequest: Sendable, Hashable {
    /// The comic as named; nil is the comic shown last.
    public var comic: ComicReference?

    /// The request for a comic as the user typed it.
    ///
    /// - Parameter comic: the comic as typed; nil for the comic shown last.
    /// - Throws: ``LibraryError/notANumber(_:)`` or ``LibraryError/belowFirst(_:)``.
    public init(comic: String?) throws(LibraryError) {
        self.comic = try comic.map { text throws(LibraryError) in try ComicReference(parsing: text) }
    }

    /// The request for a comic already parsed.
    ///
    /// - Parameter comic: the comic; nil for the comic shown last.
    public init(comic: ComicReference?) {
        self.comic = comic
    }

    /// The related comics, with why each is.
    ///
    /// - Parameter index: the index to read.
    /// - Returns: the comic and those related to it, the most related first.
    /// - Throws: ``LibraryError`` for a comic the index does not hold.
    public func run(in index: OpenIndex) throws -> RelatedComics {
        try index.library.related(comic)
    }
}

/// Completions of what is being typed in a search box: `GET /api/suggest`.
public struct SuggestRequest: Sendable, Hashable {
    /// How many completions are given.
    public static let limit = 10
    /// What has been typed so far; empty gives none.
    public var typed: String

    /// The request for what has been typed.
    ///
    /// - Parameter typed: what has been typed so far.
    public init(typed: String) {
        self.typed = typed
    }

    /// The request a URL's query gives.
    ///
    /// - Parameter parameters: `q`, what has been typed (none when absent).
    public init(reading parameters: some RequestParameters) {
        self.init(typed: parameters.value(named: RequestParameter.query.rawValue) ?? "")
    }

    /// The completions, as the API answers them.
    ///
    /// - Parameter index: the index to read.
    /// - Returns: the document, with at most ``limit`` completions.
    /// - Throws: ``SearchError/queryTooLong(length:limit:)`` for text past
    ///   ``SearchEngine/maximumQueryLength``; `StoreError` when the index cannot be read.
    public func run(in index: OpenIndex) throws -> SuggestionsDocument {
        SuggestionsDocument(query: typed, suggestions: try index.library.suggestions(for: typed, limit: Self.limit))
    }
}

/// What the index holds: `stats`, `GET /api/stats` and the page's `/about`.
public struct StatsRequest: Sendable, Hashable {
    /// Whether the document names the index file alone, not its path: what leaves a server.
    public var namesFileOnly: Bool

    /// The request for the index's counts.
    ///
    /// - Parameter namesFileOnly: give the index file's name alone, not its path.
    public init(namesFileOnly: Bool = false) {
        self.namesFileOnly = namesFileOnly
    }

    /// The counts, the model's status and the image cache's use.
    ///
    /// - Parameter index: the index to count.
    /// - Returns: the document, naming the index file as ``namesFileOnly`` says.
    /// - Throws: `StoreError` when the index cannot be read.
    public func run(in index: OpenIndex) throws -> StatsDocument {
        var stats = try StatsDocument(
            reading: index.database, imagesDirectory: index.services.paths.imagesDirectory,
            model: index.services.model)
        if namesFileOnly { stats.database = stats.database.split(separator: "/").last.map(String.init) ?? "" }
        return stats
    }
}
