/// Why a query could not be parsed, and where.
///
/// Only malformed syntax is an error; anything else is searched as words. Columns are
/// 1-based and count characters (grapheme clusters) of the query as typed.
///
/// ```swift
/// try QueryParser().parse(#"title:"bobby tables"#)
/// // throws .unclosedQuote(column: 7): "unclosed quote starting at column 7"
/// ```
public enum QueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A `"` without its closing `"`.
    case unclosedQuote(column: Int)
    /// A `(` without its closing `)`; the column is the `(`'s.
    case unclosedParenthesis(column: Int)
    /// A `)` that closes nothing.
    case unmatchedParenthesis(column: Int)
    /// More than ``QueryParser/maximumNesting`` levels of parentheses.
    case tooDeeplyNested(column: Int)
    /// More than ``QueryParser/maximumPrefixes`` prefixes (`tabl*`); the column is the first
    /// one past the limit.
    case tooManyPrefixes(column: Int)
    /// A filter whose value makes no sense: `num:abc`, `date:2010-13`, `is:cool`.
    case invalidValue(token: String, column: Int, problem: String)
    /// A range whose start is after its end: `num:9..3`, `date:2011..2010`.
    case reversedRange(token: String, column: Int, lower: String, upper: String)
    /// A range filter that leaves nothing together with an earlier one: `year:2010 year:2011`.
    case conflictingFilter(token: String, column: Int)
    /// Valid syntax in a place where it can't mean anything: a filter inside parentheses
    /// or an `OR`, an excluded filter, an exclusion as an `OR` operand.
    case misplaced(token: String, column: Int, problem: String)

    /// The 1-based column where the problem starts.
    public var column: Int {
        switch self {
        case .unclosedQuote(let column), .unclosedParenthesis(let column),
            .unmatchedParenthesis(let column), .tooDeeplyNested(let column), .tooManyPrefixes(let column):
            column
        case .invalidValue(_, let column, _), .reversedRange(_, let column, _, _),
            .conflictingFilter(_, let column), .misplaced(_, let column, _):
            column
        }
    }

    /// One lowercase line naming the problem and where it is.
    public var description: String {
        switch self {
        case .unclosedQuote(let column):
            "unclosed quote starting at column \(column)"
        case .unclosedParenthesis(let column):
            "unclosed parenthesis opened at column \(column)"
        case .unmatchedParenthesis(let column):
            "unmatched ')' at column \(column)"
        case .tooDeeplyNested(let column):
            "too deeply nested parentheses at column \(column) (at most \(QueryParser.maximumNesting) levels)"
        case .tooManyPrefixes(let column):
            "too many prefixes (word*) at column \(column): a query takes at most \(QueryParser.maximumPrefixes)"
        case .invalidValue(let token, let column, let problem):
            "\(Self.shown(token)) at column \(column): \(problem)"
        case .reversedRange(let token, let column, let lower, let upper):
            "\(Self.shown(token)) at column \(column): the range is reversed (\(lower) > \(upper))"
        case .conflictingFilter(let token, let column):
            "\(Self.shown(token)) at column \(column): no comic can also match the earlier filters of this kind"
        case .misplaced(let token, let column, let problem):
            "\(Self.shown(token)) at column \(column): \(problem)"
        }
    }

    /// The token as quoted in a message: on one line, and cut short if very long.
    static func shown(_ token: String) -> String {
        var text = String(token.map { $0.isNewline || $0.isControl ? " " : $0 })
        if text.count > 40 { text = text.prefix(40) + "…" }
        return text
    }
}

extension Character {
    /// True for C0/C1 control characters such as NUL, tab or ESC.
    var isControl: Bool {
        unicodeScalars.first?.properties.generalCategory == .control
    }
}
