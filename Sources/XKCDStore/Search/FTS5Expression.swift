import FoundationEssentials
import XKCDModel

extension TextQuery {
    /// Whether anything in the query can match a token (an emoji or `*` alone cannot).
    public var hasSearchableWord: Bool {
        switch self {
        case .term(let word, _), .prefix(let word, _): FTS5Expression.hasToken(word)
        case .phrase(let words, _): words.contains(where: FTS5Expression.hasToken)
        case .and(let operands), .or(let operands): operands.contains(where: \.hasSearchableWord)
        case .not: true
        }
    }
}

/// A ``TextQuery`` written in FTS5's query syntax.
///
/// User text enters only through ``literal(_:)``, as FTS5 string literals, so no word a person
/// types (`NEAR`, `AND`, `*`, `"`, `:`) is read as syntax.
///
/// Related SQLite documentation: <https://www.sqlite.org/fts5.html#full_text_query_syntax>
struct FTS5Expression {
    /// The part that must match; nil when the query is only exclusions or has no searchable word.
    var positive: String?
    /// Expressions whose matches are removed.
    var exclusions: [String]

    init(_ text: TextQuery) {
        var positives: [String] = []
        var exclusions: [String] = []
        let operands: [TextQuery] = if case .and(let list) = text { list } else { [text] }
        for operand in operands {
            // Every part in brackets: FTS5's NOT binds tighter than OR.
            if case .not(let excluded) = operand {
                if let rendered = Self.render(excluded) { exclusions.append("(\(rendered))") }
            } else if let rendered = Self.render(operand) {
                positives.append("(\(rendered))")
            }
        }
        positive = positives.isEmpty ? nil : "(" + positives.joined(separator: " AND ") + ")"
        self.exclusions = exclusions
    }

    /// What a `MATCH` takes for the whole query: the positive part without what is excluded;
    /// nil when there is no positive part.
    var matchPattern: String? {
        guard let positive else { return nil }
        return exclusions.isEmpty ? positive : "(" + ([positive] + exclusions).joined(separator: " NOT ") + ")"
    }

    /// The one escaping function: `say "hi"` becomes `"say ""hi"""`.
    static func literal(_ text: String) -> String {
        // Scalar by scalar, not by Character: a quote followed by a combining mark is one
        // Character in Swift but still a quote to FTS5. A NUL would end SQLite's C string.
        var scalars = String.UnicodeScalarView()
        scalars.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": scalars.append(contentsOf: ["\"", "\""] as [Unicode.Scalar])
            case "\0": scalars.append(" ")
            default: scalars.append(scalar)
            }
        }
        scalars.append("\"")
        return String(scalars)
    }

    /// Whether FTS5's unicode61 tokenizer finds any token in `word` (letters, digits, private use).
    static func hasToken(_ word: String) -> Bool {
        word.unicodeScalars.contains { scalar in
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || scalar.properties.generalCategory == .privateUse
        }
    }

    /// nil when nothing searchable is left (`*`, an emoji alone).
    private static func render(_ text: TextQuery) -> String? {
        func scope(_ field: SearchField?, _ body: String) -> String {
            guard let field else { return body }
            return "\(field.rawValue) : \(body)"
        }
        switch text {
        case .term(let word, let field):
            return hasToken(word) ? scope(field, literal(word)) : nil
        case .prefix(let word, let field):
            return hasToken(word) ? scope(field, literal(word) + " *") : nil
        case .phrase(let words, let field):
            let kept = words.filter(hasToken)
            return kept.isEmpty ? nil : scope(field, literal(kept.joined(separator: " ")))
        case .and(let operands):
            var positives: [String] = []
            var exclusions: [String] = []
            for operand in operands {
                if case .not(let excluded) = operand {
                    if let rendered = render(excluded) { exclusions.append(rendered) }
                } else if let rendered = render(operand) {
                    positives.append(rendered)
                }
            }
            guard !positives.isEmpty else { return nil }
            let body = positives.map { "(\($0))" }.joined(separator: " AND ")
            let combined: String = exclusions.reduce("(\(body))") { "\($0) NOT (\($1))" }
            return combined
        case .or(let operands):
            let rendered = operands.compactMap { render($0) }
            return rendered.isEmpty ? nil : rendered.map { "(\($0))" }.joined(separator: " OR ")
        case .not:
            // An exclusion on its own inside a group; the parser only allows it beside a word.
            return nil
        }
    }
}
