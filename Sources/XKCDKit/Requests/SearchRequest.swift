/// A search in the query language: `search`, the REPL's bare queries, `GET /api/search` and the
/// page's `/search`.
///
/// ```swift
/// let request = try SearchRequest(text: "bobby tables", limit: 5)
/// let results = try request.run(in: index)
/// ```
public struct SearchRequest: Sendable, Hashable {
    /// How many comics a page holds unless told.
    public static let defaultLimit = 10
    /// The page sizes a search takes.
    public static let limits = 1...1000
    /// The pages a search takes.
    public static let pages = 1...Int.max
    /// The longest query taken, in bytes of UTF-8.
    public static let maximumLength = SearchEngine.maximumQueryLength

    /// The query as typed.
    public var text: String
    /// How many comics a page holds, in ``limits``.
    public var limit: Int
    /// Which page of results, from 1.
    public var page: Int
    /// The words as typed: no spelling correction or suggestion.
    public var isExact: Bool

    /// Whether the query reads the owner's favourites (`is:fav`, `tag:NAME`), which no other
    /// site's page may read through the server.
    public var readsFavourites: Bool {
        guard let query = try? QueryParser().parse(text) else { return false }
        return query.isFavourite || !query.tags.isEmpty
    }

    /// The request for a query, with its page size and page checked.
    ///
    /// - Parameters:
    ///   - text: the query; one with nothing to search for is the engine's to refuse
    ///     (``SearchError/nothingToSearch``), with the query language's words.
    ///   - limit: comics a page holds, in ``limits``.
    ///   - page: which page, from 1.
    ///   - isExact: search the words as typed, with no spelling correction.
    /// - Throws: ``RequestError/outOfRange(_:value:allowed:)`` for a limit or page outside what a
    ///   search takes.
    public init(text: String, limit: Int = defaultLimit, page: Int = 1, isExact: Bool = false) throws(RequestError) {
        guard Self.limits.contains(limit) else {
            throw .outOfRange(.limit, value: String(limit), allowed: allowedWords(Self.limits))
        }
        guard Self.pages.contains(page) else {
            throw .outOfRange(.page, value: String(page), allowed: allowedWords(Self.pages))
        }
        self.text = text
        self.limit = limit
        self.page = page
        self.isExact = isExact
    }

    /// The request a URL's query gives: `q`, `limit`, `page`, `exact`.
    ///
    /// - Parameters:
    ///   - parameters: the parameters by name.
    ///   - defaultLimit: the page size when `limit` is not given.
    /// - Throws: ``RequestError`` for a missing query or a parameter it does not take.
    public init(reading parameters: some RequestParameters, defaultLimit: Int = defaultLimit) throws(RequestError) {
        // An empty `q=` is a form sent blank: no query, as when it is absent.
        guard let text = parameters.value(named: RequestParameter.query.rawValue), !text.isEmpty else {
            throw .missing(.query)
        }
        try self.init(
            text: text,
            limit: try parameters.number(
                .limit, default: defaultLimit, in: Self.limits, allowed: allowedWords(Self.limits)),
            page: try parameters.number(.page, default: 1, in: Self.pages, allowed: allowedWords(Self.pages)),
            isExact: try parameters.flag(.exact))
    }

    /// The page of results asked for.
    ///
    /// - Parameter index: the index to search.
    /// - Throws: `QueryError` or ``SearchError`` for a query that cannot be read,
    ///   ``LibraryError/emptyIndex`` when nothing is indexed, `StoreError` when the index cannot
    ///   be read.
    /// - Returns: the page asked for, with the total and any spelling correction or suggestion.
    public func run(in index: OpenIndex) throws -> SearchResults {
        try index.engine.search(text, limit: limit, page: page, correctingSpelling: !isExact)
    }
}
