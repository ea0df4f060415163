import XKCDModel
import XKCDQuery

/// One result of a search.
public struct SearchResult: Sendable, Hashable {
    /// The comic's number.
    public var id: Comic.ID
    /// The comic's title.
    public var title: String
    /// When the comic was published.
    public var date: ComicDate
    /// How well the comic fits the query; higher is better, comparable only within one search.
    public var score: Double
    /// Text from the best-matching field, with matched words between ``SearchEngine/highlightMarks``.
    public var snippet: String
    /// Why the comic is in the results.
    public var match: Match

    /// Why a comic is in the results of a search.
    public enum Match: String, Sendable, Hashable {
        /// It holds every word (or satisfies the phrases, OR and exclusions).
        case allWords = "all-words"
        /// It holds only some of the words (the any-word fallback).
        case someWords = "some-words"
        /// It holds none of the words that decided its place: its text means what the query says.
        case similar
    }

    /// True when the comic holds only some of the query's words (the any-word fallback).
    public var isPartialMatch: Bool { match == .someWords }
}

/// A query the engine refuses: too long to parse, or with nothing to search for.
public enum SearchError: Error, Equatable, CustomStringConvertible {
    /// A query longer than ``SearchEngine/maximumQueryLength``, both in bytes of UTF-8.
    case queryTooLong(length: Int, limit: Int)
    /// Nothing in the query can be searched for: empty, `-`, `()`, `*`.
    case nothingToSearch
    /// A passage given to ``SearchEngine/relevant(to:limit:settings:)`` holds no word any comic
    /// holds (it is empty, or marks only), and meaning cannot be asked.
    case passageHasNoWords

    /// What is wrong, as one lowercase line without a full stop.
    public var description: String {
        switch self {
        case .queryTooLong(let length, let limit):
            "the query is too long (\(length) bytes; the limit is \(limit) bytes)"
        case .nothingToSearch:
            "the query has nothing to search for: give words, a \"phrase\", a comic number or a filter such as year:2010"
        case .passageHasNoWords:
            "the passage has no word that any comic holds: give a sentence or a few"
        }
    }
}

/// A page of results and what the engine did to get them.
public struct SearchResults: Sendable {
    /// The query as typed.
    public var query: String
    /// Results over all pages: comics matching every word and, when few do, partial matches.
    public var total: Int
    /// Which page this is, from 1.
    public var page: Int
    /// How many comics a page holds.
    public var limit: Int
    /// The corrected query searched instead, when a word of the query as typed is in no comic
    /// in that form.
    public var corrected: String?
    /// Whether the query as typed found comics too (by the stems of its words) before it was
    /// corrected: the notice then must not say it found nothing.
    public var typedQueryFound = false
    /// A line about the query to show above the results: that #404 does not exist, on purpose.
    public var note: String?
    /// A spelling suggestion for a query that found something as typed.
    public var suggestion: String?
    /// This page's comics, best first.
    public var results: [SearchResult]
    /// Set when the query asked for ranking by meaning but the sentence model or the index's
    /// vectors could not be used: the results are ranked by words alone.
    public var semanticProblem: SemanticSearchError?

    /// How many pages the results fill.
    public var pageCount: Int { limit > 0 ? (total + limit - 1) / limit : 0 }
    /// Whether a page follows this one, for a `next` link.
    public var hasNextPage: Bool { page < pageCount }
}
