import Foundation
import XKCDKit

/// The template `search.mustache`: a page of results, or why there is none.
struct SearchView: Sendable {
    struct Result: Sendable {
        /// A piece of the snippet, marked when it is a matched word.
        struct Piece: Sendable {
            var text: String
            var isMarked: Bool
        }

        var num: Int
        var title: String
        var date: String
        var snippet: [Piece]
        var match: String
    }

    var query: String = ""
    /// Whether a query was searched, so that there is a count to say (not for an empty box or a
    /// query that could not be read: a template's section takes an empty string as true).
    var hasQuery = false
    /// The texts for links, as a URL's query gives them.
    var queryParameter: String = ""
    var total: Int = 0
    var isOne: Bool = false
    var results: [Result] = []
    var corrected: String?
    var correctedParameter: String?
    var typed: String?
    var typedParameter: String?
    var suggestion: String?
    var suggestionParameter: String?
    var note: String?
    var problem: String?
    var nextPage: Int?
    var isExact = false
    var isEmpty: Bool = false

    static let empty = SearchView()

    init(problem: String? = nil) {
        self.problem = problem
    }

    init(_ results: SearchResults) {
        query = results.query
        hasQuery = true
        queryParameter = Self.parameter(results.query)
        total = results.total
        isOne = results.total == 1
        self.results = results.results.map { result in
            let match =
                switch result.match {
                case .allWords: "all words"
                case .someWords: "some words"
                case .similar: "similar in meaning"
                }
            return Result(
                num: result.id, title: sanitized(result.title), date: result.date.description,
                snippet: Self.pieces(of: result.snippet), match: match)
        }
        corrected = results.corrected
        correctedParameter = results.corrected.map(Self.parameter)
        typed = results.corrected == nil ? nil : results.query
        typedParameter = typed.map(Self.parameter)
        suggestion = results.suggestion
        suggestionParameter = results.suggestion.map(Self.parameter)
        note = results.note
        nextPage = results.hasNextPage ? results.page + 1 : nil
        isEmpty = results.results.isEmpty
    }

    /// `text` as a value in a URL's query: `&`, `+`, `=` and `#` encoded too.
    static func parameter(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&+=#"))) ?? ""
    }

    /// The snippet cut at the engine's marks, so that the template marks the matched words and
    /// escapes every piece.
    static func pieces(of snippet: String) -> [Result.Piece] {
        var pieces: [Result.Piece] = []
        var isMarked = false
        var text = ""
        for character in sanitized(snippet) {
            let mark = String(character)
            if mark == SearchEngine.highlightMarks.open || mark == SearchEngine.highlightMarks.close {
                if !text.isEmpty { pieces.append(.init(text: text, isMarked: isMarked)) }
                text = ""
                isMarked = mark == SearchEngine.highlightMarks.open
            } else {
                text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.init(text: text, isMarked: isMarked)) }
        return pieces
    }
}
