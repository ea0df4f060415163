/// The comics that fit a passage someone wrote: `relevant`, `POST /api/relevant` and the page's
/// `/relevant`.
public struct RelevantRequest: Sendable, Hashable {
    /// How many comics are given unless told: a person reads a few.
    public static let defaultLimit = 5
    /// How many comics a request may ask for.
    public static let limits = SearchRequest.limits
    /// The longest passage read, in bytes of UTF-8; a longer one is cut at a sentence end or
    /// refused, as the front end chooses.
    public static let maximumLength = SearchEngine.maximumPassageLength

    /// The passage as given.
    public var passage: String
    /// How many comics to give, in ``limits``.
    public var limit: Int

    /// The request for a passage, with its limit checked.
    ///
    /// - Parameters:
    ///   - passage: the passage; one without a word any comic holds is the engine's to refuse
    ///     (``SearchError/passageHasNoWords``).
    ///   - limit: how many comics, in ``limits``.
    ///   - refusingLongPassages: throw for a passage over ``maximumLength`` (the API: a client
    ///     would rather know than have it cut); else the engine reads its head and says so.
    /// - Throws: ``RequestError/tooLong(_:length:limit:)`` for a passage too long,
    ///   ``RequestError/outOfRange(_:value:allowed:)`` for a limit outside ``limits``.
    public init(passage: String, limit: Int = defaultLimit, refusingLongPassages: Bool = false) throws(RequestError) {
        if refusingLongPassages, passage.utf8.count > Self.maximumLength {
            throw .tooLong(.text, length: passage.utf8.count, limit: Self.maximumLength)
        }
        guard Self.limits.contains(limit) else {
            throw .outOfRange(.limit, value: String(limit), allowed: allowedWords(Self.limits))
        }
        self.passage = passage
        self.limit = limit
    }

    /// The request the API reads: the passage from its body, `limit` from its query (a page of
    /// ten unless told, as a search), and a passage over ``maximumLength`` refused.
    ///
    /// - Parameters:
    ///   - passage: the passage sent.
    ///   - parameters: the query's parameters.
    /// - Throws: what ``init(passage:limit:refusingLongPassages:)`` throws.
    public init(passage: String, reading parameters: some RequestParameters) throws(RequestError) {
        try self.init(
            passage: passage,
            limit: try parameters.number(
                .limit, default: SearchRequest.defaultLimit, in: Self.limits, allowed: allowedWords(Self.limits)),
            refusingLongPassages: true)
    }

    /// The comics that fit the passage, best first, with why.
    ///
    /// - Parameter index: the index to rank.
    /// - Throws: ``SearchError/passageHasNoWords`` when no comic holds any of its words and
    ///   meaning cannot be asked; `StoreError` when the index cannot be read.
    /// - Returns: at most ``limit`` comics, with the passage's words they were found by.
    public func run(in index: OpenIndex) throws -> RelevantResults {
        try index.engine.relevant(to: passage, limit: limit)
    }
}
