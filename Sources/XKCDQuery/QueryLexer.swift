import XKCDModel

/// One piece of query syntax, with the column it starts at.
struct QueryToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// Bare text up to whitespace, a parenthesis or a quote: `tables`, `c++`, `foo*`, `foo:bar`.
        case word(String)
        /// An uppercase `OR` or a lone `|`; the parser decides whether it is an operator.
        case orCandidate(String)
        /// `"…"`: the words between the quotes.
        case phrase([String])
        /// `(`, or `title:(` with its scope.
        case open(field: SearchField?)
        case close
        /// A `-` glued to what it excludes.
        case minus
        /// `key:value` for a known key (lowercased); `quoted` when the value was `"…"`.
        case scoped(key: String, value: String, quoted: Bool)
    }

    var kind: Kind
    /// 1-based character column of the token's first character.
    var column: Int
    /// The token as typed, for error messages.
    var source: String
}

/// Splits query text into ``QueryToken``s in one pass.
struct QueryLexer {
    static let fieldKeys: [String: SearchField] = Dictionary(
        uniqueKeysWithValues: SearchField.allCases.map { ($0.rawValue, $0) })
    /// One example of each filter, for the message about a filter with no value.
    static let filterExamples: [String: String] = [
        "num": "num:100..200", "year": "year:2010", "date": "date:2010-03", "before": "before:2010",
        "after": "after:2015", "is": "is:fav", "tag": "tag:physics", "sort": "sort:-date",
    ]
    static let filterKeys = Set(filterExamples.keys)
    static let quotes: Set<Character> = ["\"", "\u{201C}", "\u{201D}"]

    private var chars: [Character]
    private var index = 0

    /// - Parameters:
    ///   - text: the query as typed, to be split into tokens.
    ///   - strayQuote: the 1-based column of a quote read as a character, which
    ///     separates words like a space (an unclosed quote in a sentence).
    init(_ text: String, strayQuote: Int? = nil) {
        chars = Array(text)
        if let strayQuote, chars.indices.contains(strayQuote - 1) { chars[strayQuote - 1] = " " }
    }

    /// Whitespace and control characters separate words. So does a character that
    /// can't stand alone: a combining mark, joiner or skin-tone modifier left without a
    /// base (after a control character, say), or a prefix mark with nothing after it.
    /// Such a character can't be searched, and written next to a space it would merge with it.
    static func isSeparator(_ character: Character) -> Bool {
        // ASCII (CR LF too) is nearly every character typed: whitespace and controls are the
        // bytes up to the space, and DEL, without a look at Unicode properties.
        if let ascii = character.asciiValue { return ascii <= 0x20 || ascii == 0x7F }
        let scalars = character.unicodeScalars
        guard !scalars.isEmpty else { return true }
        if scalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return true
        }
        let text = String(character)
        return (" " + text).count == 1 || (text + " ").count == 1
    }

    /// Characters that end a bare word.
    private static func endsWord(_ character: Character) -> Bool {
        isSeparator(character) || character == "(" || character == ")" || isQuote(character)
    }

    /// Whether `character` opens or closes a phrase; an ASCII one is not hashed to tell.
    static func isQuote(_ character: Character) -> Bool {
        if let ascii = character.asciiValue { return ascii == UInt8(ascii: "\"") }
        return quotes.contains(character)
    }

    mutating func tokens() throws(QueryError) -> [QueryToken] {
        var tokens: [QueryToken] = []
        var afterMinus = false
        while true {
            while index < chars.count, Self.isSeparator(chars[index]) {
                index += 1
                afterMinus = false
            }
            guard index < chars.count else { break }
            let start = index
            let column = start + 1
            let character = chars[index]
            let wasAfterMinus = afterMinus
            afterMinus = false
            if character == "(" {
                index += 1
                tokens.append(QueryToken(kind: .open(field: nil), column: column, source: "("))
            } else if character == ")" {
                index += 1
                tokens.append(QueryToken(kind: .close, column: column, source: ")"))
            } else if Self.isQuote(character) {
                let content = try quoted()
                tokens.append(
                    QueryToken(kind: .phrase(Self.words(in: content)), column: column, source: source(from: start)))
            } else if character == "-", index + 1 < chars.count, !Self.isSeparator(chars[index + 1]),
                chars[index + 1] != "-", chars[index + 1] != ")"
            {
                index += 1
                afterMinus = true
                tokens.append(QueryToken(kind: .minus, column: column, source: "-"))
            } else {
                tokens.append(try bareWord(column: column, afterMinus: wasAfterMinus))
            }
        }
        return tokens
    }

    private func text(_ range: Range<Int>) -> String {
        String(chars[range])
    }

    /// Reads `"…"` starting at the opening quote and returns what is between the quotes.
    private mutating func quoted() throws(QueryError) -> String {
        let open = index
        index += 1
        let contentStart = index
        while index < chars.count, !Self.isQuote(chars[index]) { index += 1 }
        guard index < chars.count else { throw .unclosedQuote(column: open + 1) }
        let content = text(contentStart..<index)
        index += 1
        return content
    }

    private mutating func bareWord(column: Int, afterMinus: Bool) throws(QueryError) -> QueryToken {
        let start = index
        while index < chars.count, !Self.endsWord(chars[index]) { index += 1 }
        let word = text(start..<index)
        if !afterMinus, word == "OR" || word == "|" {
            return QueryToken(kind: .orCandidate(word), column: column, source: word)
        }
        guard let colon = word.firstIndex(of: ":") else {
            return QueryToken(kind: .word(word), column: column, source: word)
        }
        let key = word[..<colon].lowercased()
        let field = Self.fieldKeys[key]
        guard field != nil || Self.filterKeys.contains(key) else {
            return QueryToken(kind: .word(word), column: column, source: word)
        }
        let value = String(word[word.index(after: colon)...])
        if !value.isEmpty {
            return QueryToken(kind: .scoped(key: key, value: value, quoted: false), column: column, source: word)
        }
        // `key:` with nothing glued after it is a word, unless a quote or `(` follows at once.
        if index < chars.count, Self.isQuote(chars[index]) {
            let content = try quoted()
            return QueryToken(
                kind: .scoped(key: key, value: content, quoted: true), column: column,
                source: source(from: start))
        }
        if let field, index < chars.count, chars[index] == "(" {
            index += 1
            return QueryToken(kind: .open(field: field), column: column, source: source(from: start))
        }
        // A filter with no value is a filter left unfinished, not the word: `tag:` searching for
        // "tag" would find comics about tags.
        if field == nil {
            throw .invalidValue(
                token: word, column: column, problem: "needs a value, as in \(Self.filterExamples[key, default: word])")
        }
        return QueryToken(kind: .word(word), column: column, source: word)
    }

    private func source(from start: Int) -> String {
        text(start..<index)
    }

    static func words(in text: String) -> [String] {
        text.split(whereSeparator: isSeparator).map(String.init)
    }
}
