import Foundation
import XKCDStore

/// What `GET /api/suggest` answers: completions of what is being typed.
public struct SuggestionsDocument: Encodable, Sendable {
    var query: String
    var suggestions: [String]

    /// The document for one answer.
    ///
    /// - Parameters:
    ///   - query: the text as it was typed.
    ///   - suggestions: the completions, as ``Library/suggestions(for:limit:)`` found them.
    public init(query: String, suggestions: [String]) {
        self.query = query
        self.suggestions = suggestions
    }
}

extension Library {
    /// Completions of `text` as it is being typed, at most `limit`: the titles that start with
    /// it, newest first, then `text` with its last word completed by the index's most common
    /// words that start with it. Nothing for blank text; no word completed after a space.
    ///
    /// ```swift
    /// try library.suggestions(for: "bobby tab")   // ["bobby tables", "bobby table", …]
    /// try library.suggestions(for: "Exploits")    // ["Exploits of a Mom"]
    /// ```
    ///
    /// - Parameters:
    ///   - text: what has been typed so far.
    ///   - limit: the most completions to give.
    /// - Returns: the completions, each the whole text to put in the search box.
    /// - Throws: ``SearchError/queryTooLong(length:limit:)`` past
    ///   ``SearchEngine/maximumQueryLength``; `StoreError` when the index cannot be read.
    public func suggestions(for text: String, limit: Int = 10) throws -> [String] {
        guard text.utf8.count <= SearchEngine.maximumQueryLength else {
            throw SearchError.queryTooLong(length: text.utf8.count, limit: SearchEngine.maximumQueryLength)
        }
        let typed = String(text.drop { $0.isWhitespace })
        guard !typed.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        var suggestions = try database.titles(startingWith: typed, limit: limit)
        if let last = typed.last, !last.isWhitespace {
            let start = typed.lastIndex(where: \.isWhitespace).map { typed.index(after: $0) } ?? typed.startIndex
            let lead = typed[..<start]
            suggestions += try database.readCommonWords(startingWith: String(typed[start...]), limit: limit).map {
                lead + $0
            }
        }
        var seen = Set<String>()
        return Array(suggestions.filter { seen.insert($0.lowercased()).inserted }.prefix(limit))
    }

    /// The index's most common words that start with `prefix`, at most `limit`: for completing a
    /// word typed at the REPL.
    ///
    /// - Parameters:
    ///   - prefix: the start of the word typed.
    ///   - limit: the most words to give.
    /// - Returns: the words, the most common first.
    /// - Throws: `StoreError` when the index cannot be read.
    public func commonWords(startingWith prefix: String, limit: Int) throws -> [String] {
        try database.readCommonWords(startingWith: prefix, limit: limit)
    }
}
