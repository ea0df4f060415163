/// The text extracted from one explain xkcd wiki page.
public struct ExplainedPage: Sendable, Hashable, Codable {
    /// The Explanation section (or its stand-in), paragraphs separated by blank lines.
    public var explanation: String
    /// The Transcript section, one line per panel line; empty when the page has none.
    public var transcript: String
    /// The Trivia section; empty when the page has none.
    public var trivia: String
    /// Category names found in the page itself (full pages only; API responses list them apart).
    public var categories: [String]
    /// True when the wiki flagged the explanation (or transcript) as incomplete.
    public var isIncomplete: Bool
    /// The comics whose wiki pages the Explanation, Transcript and Trivia link to, each once, in
    /// the order first linked; the page's own comic may be among them.
    public var linkedComics: [Comic.ID]

    public init(
        explanation: String, transcript: String, trivia: String, categories: [String] = [],
        isIncomplete: Bool, linkedComics: [Comic.ID] = []
    ) {
        self.explanation = explanation
        self.transcript = transcript
        self.trivia = trivia
        self.categories = categories
        self.isIncomplete = isIncomplete
        self.linkedComics = linkedComics
    }
}

/// An explain xkcd page as stored: the parsed text plus what the wiki API said about it.
public struct Explanation: Sendable, Hashable, Codable {
    public var comicID: Comic.ID
    /// The wiki page name, "327: Exploits of a Mom".
    public var pageTitle: String
    public var page: ExplainedPage
    /// Wiki categories (from the API, or from the page when it is a full page).
    public var categories: [String]
    public var revision: Int?

    public init(comicID: Comic.ID, pageTitle: String, page: ExplainedPage, categories: [String], revision: Int?) {
        self.comicID = comicID
        self.pageTitle = pageTitle
        self.page = page
        self.categories = categories
        self.revision = revision
    }
}
