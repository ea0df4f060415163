import XKCDModel

/// Turns what the user typed into a ``SearchQuery``.
///
/// The parser is pure, linear in the length of the input, and never crashes: only
/// malformed syntax throws a ``QueryError``; everything else is searched as words.
/// See ``syntaxHelp`` for the language.
///
/// ```swift
/// let query = try QueryParser().parse(#"title:"bobby tables" OR sql -drop year:2007.. sort:-date"#)
/// query.text  // .and([.or([.phrase(["bobby", "tables"], field: .title), .term("sql", field: nil)]),
///             //       .not(.term("drop", field: nil))])
/// query.dateRange?.lower  // 2007-01-01
/// query.sort  // .dateDescending
/// ```
///
/// Decisions at the edges:
/// - `OR` (uppercase) and a lone `|` are operators only between two operands; otherwise
///   they are the word "OR". `OR` binds tighter than the implicit AND: `a b OR c` is
///   `a AND (b OR c)`.
/// - `-` excludes only when glued to what follows (`-word`, `-"a b"`, `-(a b)`,
///   `-title:x`); a lone `-`, `--x` and `e-mail` are words.
/// - `foo*` is a prefix; `*` alone, `**` and `fo*o` are words.
/// - `(` and `)` are always syntax outside quotes, so `f(x)` is `f x` and `:)` is an
///   unmatched parenthesis. `"`, `“` and `”` all open and close phrases.
/// - Unknown `key:value` (`foo:bar`, `http://x`) and a scope with nothing after it
///   (`title:`) are kept as one word as typed; the store's tokenizer splits them.
/// - Filters (`num:` `year:` `date:` `before:` `after:` `is:` `tag:` `sort:`) apply to
///   the whole query: inside parentheses, in an `OR`, or excluded, they are an error.
///   Repeated range filters intersect; the last `sort:` wins.
/// - A query of exclusions only (`-foo`, `is:fav -physics`) means every comic except
///   those matching; an exclusion can't be an `OR` operand.
/// - The whole text being one number (`327`, `#327`), the number after `xkcd` (`xkcd 327`) or
///   the address of a comic's page on xkcd.com or explain xkcd sets ``SearchQuery/exactComic``
///   and keeps the number as a term; among other words, numbers are ordinary words.
/// - Text written as prose is read as a description (see `PlainText`): a leading "the one
///   where" is left out, and a sentence's quoted speech is preferred rather than required
///   (``SearchQuery/isSentence``). A contraction typed without its apostrophe is searched as
///   the contraction (`cant` as `can't`).
public struct QueryParser: Sendable {
    /// The deepest nesting of parentheses accepted before ``QueryError/tooDeeplyNested(column:)``.
    public static let maximumNesting = 64
    /// The most prefixes (`tabl*`) a query takes before ``QueryError/tooManyPrefixes(column:)``:
    /// each is looked up among every word of the index, so a query of hundreds (`a* a* a* …`)
    /// would hold a core for seconds. People type one or two.
    public static let maximumPrefixes = 10
    /// Plain text with at least this many words outside quotes, as typed, is a sentence.
    public static let sentenceWordCount = 4

    public init() {}

    /// Parses `text`; an empty or blank text gives an empty ``SearchQuery``.
    ///
    /// - Throws: ``QueryError`` for an unclosed quote (except in a sentence) or parenthesis,
    ///   an unmatched `)`, too deep nesting, an invalid or reversed filter value, or a misplaced
    ///   filter or exclusion. Quote errors are found before the others.
    public func parse(_ text: String) throws(QueryError) -> SearchQuery {
        if let number = ComicAddress.number(in: text) {
            return SearchQuery(text: .term(String(number), field: nil), exactComic: number)
        }
        var lexer = QueryLexer(text)
        let tokens: [QueryToken]
        var unclosedQuote: QueryError?
        do {
            tokens = try lexer.tokens()
        } catch {
            // The lexer throws for an unclosed quote only, the last quote of the text: without it
            // the rest reads.
            unclosedQuote = error
            var lenient = QueryLexer(text, strayQuote: error.column)
            tokens = try lenient.tokens()
        }
        let reading = PlainText.read(tokens)
        if let unclosedQuote, !reading.isSentence { throw unclosedQuote }
        var parser = Parser(tokens: reading.tokens)
        var query = try parser.parseQuery()
        query.isSentence = reading.isSentence
        return query
    }
}

/// What one operand of the query turned out to be.
private enum Operand {
    case text(TextQuery)
    /// A parenthesised group's items, spliced into an AND or combined for an OR.
    case group([TextQuery])
    case filter(QueryToken)
    /// An empty phrase or group: nothing to search.
    case nothing
}

struct Parser {
    let tokens: [QueryToken]
    var position = 0
    var query = SearchQuery()
    /// The prefixes (`tabl*`) read so far.
    var prefixCount = 0

    init(tokens: [QueryToken]) {
        self.tokens = tokens
    }

    mutating func parseQuery() throws(QueryError) -> SearchQuery {
        query.text = Self.combine(try parseSequence(field: nil, depth: 0, openColumn: nil))
        if case .term(let word, nil)? = query.text, let number = Self.comicNumber(word) {
            query.exactComic = number
            query.text = .term(String(number), field: nil)
        }
        return query
    }

    /// Parses operands up to the end, or up to the `)` closing the group opened at `openColumn`.
    private mutating func parseSequence(
        field: SearchField?, depth: Int, openColumn: Int?
    ) throws(QueryError) -> [TextQuery] {
        var items: [TextQuery] = []
        while position < tokens.count {
            let token = tokens[position]
            if case .close = token.kind {
                guard openColumn != nil else { throw .unmatchedParenthesis(column: token.column) }
                position += 1
                return items
            }
            var operands = [(try parseUnary(field: field, depth: depth), token)]
            while position + 1 < tokens.count, case .orCandidate = tokens[position].kind,
                Self.startsOperand(tokens[position + 1])
            {
                position += 1
                var start = tokens[position]
                if case .minus = start.kind, position + 1 < tokens.count { start.source += tokens[position + 1].source }
                operands.append((try parseUnary(field: field, depth: depth), start))
            }
            if operands.count == 1 {
                switch operands[0].0 {
                case .text(let text): items.append(text)
                case .group(let group): items.append(contentsOf: group)
                case .filter(let filter):
                    guard depth == 0 else {
                        throw .misplaced(
                            token: filter.source, column: filter.column,
                            problem: "filters apply to the whole query and can't be inside parentheses")
                    }
                    try apply(filter)
                case .nothing: break
                }
            } else if let alternative = try Self.alternative(of: operands) {
                items.append(alternative)
            }
        }
        if let openColumn { throw .unclosedParenthesis(column: openColumn) }
        return items
    }

    /// Combines the operands of `a OR b OR c`, rejecting filters and exclusions.
    private static func alternative(of operands: [(Operand, QueryToken)]) throws(QueryError) -> TextQuery? {
        var alternatives: [TextQuery] = []
        for (operand, token) in operands {
            let text: TextQuery?
            switch operand {
            case .text(let single): text = single
            case .group(let group): text = combine(group)
            case .filter(let filter):
                throw .misplaced(
                    token: filter.source, column: filter.column,
                    problem: "filters apply to the whole query and can't be part of an or")
            case .nothing: text = nil
            }
            guard let text else { continue }
            guard isPositive(text) else {
                throw .misplaced(
                    token: token.source, column: token.column, problem: "an exclusion can't be part of an or")
            }
            if case .or(let inner) = text { alternatives.append(contentsOf: inner) } else { alternatives.append(text) }
        }
        return combine(alternatives, as: TextQuery.or)
    }

    /// Parses one word, phrase, group, filter or exclusion.
    private mutating func parseUnary(field: SearchField?, depth: Int) throws(QueryError) -> Operand {
        let token = tokens[position]
        position += 1
        switch token.kind {
        case .word(let word), .orCandidate(let word):
            return .text(try counted(Self.leaf(word, field: field), at: token))
        case .phrase(let words):
            return words.isEmpty ? .nothing : .text(.phrase(words.map(Contractions.expanded), field: field))
        case .scoped(let key, let value, let quoted):
            guard let scope = QueryLexer.fieldKeys[key] else { return .filter(token) }
            if quoted {
                let words = QueryLexer.words(in: value).map(Contractions.expanded)
                return words.isEmpty ? .nothing : .text(.phrase(words, field: scope))
            }
            return .text(try counted(Self.leaf(value, field: scope), at: token))
        case .open(let scope):
            guard depth < QueryParser.maximumNesting else { throw .tooDeeplyNested(column: token.column) }
            return .group(try parseSequence(field: scope ?? field, depth: depth + 1, openColumn: token.column))
        case .close:
            // Callers stop at `)`; the lexer never puts one right after `-`.
            throw .unmatchedParenthesis(column: token.column)
        case .minus:
            guard position < tokens.count else { return .text(.term("-", field: field)) }
            let excluded = tokens[position]
            let shown = "-" + excluded.source
            if case .scoped(let key, _, _) = excluded.kind, QueryLexer.fieldKeys[key] == nil {
                throw .misplaced(token: shown, column: token.column, problem: "filters can't be excluded")
            }
            let text: TextQuery?
            switch try parseUnary(field: field, depth: depth) {
            case .text(let single): text = single
            case .group(let group): text = Self.combine(group)
            case .filter, .nothing: text = nil
            }
            guard let text else { return .nothing }
            guard Self.isPositive(text) else {
                throw .misplaced(
                    token: shown, column: token.column,
                    problem: "an exclusion must contain a word that isn't excluded")
            }
            return .text(.not(text))
        }
    }

    private static func startsOperand(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .word, .phrase, .open, .minus, .scoped: true
        case .orCandidate, .close: false
        }
    }

    /// `leaf`, counted against ``QueryParser/maximumPrefixes`` when it is a prefix.
    private mutating func counted(_ leaf: TextQuery, at token: QueryToken) throws(QueryError) -> TextQuery {
        if case .prefix = leaf {
            prefixCount += 1
            guard prefixCount <= QueryParser.maximumPrefixes else { throw .tooManyPrefixes(column: token.column) }
        }
        return leaf
    }

    /// A word as typed, or a prefix when it ends in `*` after at least one other character.
    private static func leaf(_ word: String, field: SearchField?) -> TextQuery {
        var stemEnd = word.startIndex  // just after the last character that isn't `*`
        var index = word.startIndex
        while index < word.endIndex {
            let next = word.index(after: index)
            if word[index] != "*" { stemEnd = next }
            index = next
        }
        if stemEnd > word.startIndex, stemEnd < word.endIndex {
            return .prefix(String(word[..<stemEnd]), field: field)
        }
        return .term(Contractions.expanded(word), field: field)
    }

    /// Whether `word` is a prefix (`tabl*`) rather than a word.
    static func isPrefix(_ word: String) -> Bool {
        word.last == "*" && word.contains { $0 != "*" }
    }

    private static func combine(
        _ items: [TextQuery], as make: ([TextQuery]) -> TextQuery = TextQuery.and
    ) -> TextQuery? {
        switch items.count {
        case 0: nil
        case 1: items[0]
        default: make(items)
        }
    }

    /// Whether `text` matches something on its own (it isn't only exclusions).
    private static func isPositive(_ text: TextQuery) -> Bool {
        switch text {
        case .term, .prefix, .phrase, .or: true
        case .and(let operands): operands.contains(where: isPositive)
        case .not: false
        }
    }

    /// `327` or `#327` as a comic number; nil for anything else.
    static func comicNumber(_ word: String) -> Int? {
        let digits = word.hasPrefix("#") ? word.dropFirst() : Substring(word)
        return number(digits)
    }

    /// At most 9 ASCII digits as an Int, so it can't overflow.
    static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    // MARK: - Filters

    private mutating func apply(_ token: QueryToken) throws(QueryError) {
        guard case .scoped(let key, let rawValue, _) = token.kind else { return }
        let value = rawValue.trimmingSeparators()
        func invalid(_ problem: String) -> QueryError {
            .invalidValue(token: token.source, column: token.column, problem: problem)
        }
        switch key {
        case "num":
            let problem = "expected a comic number like 327 or a range like 100..200"
            let (lower, upper) = try Self.rangeParts(value, invalid(problem))
            func comic(_ text: Substring?) throws(QueryError) -> Int? {
                guard let text else { return nil }
                guard let number = Self.number(text.hasPrefix("#") ? text.dropFirst() : text) else {
                    throw invalid(problem)
                }
                return number
            }
            let bounds = Bounds(lower: try comic(lower), upper: try comic(upper))
            if let low = bounds.lower, let high = bounds.upper, low > high {
                throw .reversedRange(token: token.source, column: token.column, lower: "\(low)", upper: "\(high)")
            }
            query.numberRange = try Self.intersect(query.numberRange, bounds, token)
        case "year", "date":
            let (lower, upper) = try Self.rangeParts(
                value, invalid("expected a date like 2010-03-05 or a range like 2010..2011-06"))
            func period(_ text: Substring?) throws(QueryError) -> DatePeriod? {
                guard let text else { return nil }
                if key == "year" {
                    guard text.count == 4, let year = Self.number(text), year > 0 else {
                        throw invalid("expected a 4-digit year like 2010")
                    }
                    return DatePeriod(year: year)
                }
                return try DatePeriod(parsing: text, invalid)
            }
            let from = try period(lower)
            let to = try period(upper)
            if let from, let to, from.first > to.last {
                throw .reversedRange(
                    token: token.source, column: token.column, lower: String(lower ?? ""), upper: String(upper ?? ""))
            }
            query.dateRange = try Self.intersect(query.dateRange, Bounds(lower: from?.first, upper: to?.last), token)
        case "before", "after":
            guard value.firstDots() == nil, !value.isEmpty else {
                throw invalid("expected one date like 2010, 2010-03 or 2010-03-05")
            }
            let period = try DatePeriod(parsing: Substring(value), invalid)
            let bounds =
                key == "before"
                ? Bounds(lower: nil, upper: period.first.previousDay)
                : Bounds(lower: period.last.nextDay, upper: nil)
            query.dateRange = try Self.intersect(query.dateRange, bounds, token)
        case "is":
            guard ["fav", "favs", "favourite", "favourites", "favorite", "favorites"].contains(value.lowercased())
            else {
                throw invalid("expected is:fav")
            }
            query.isFavourite = true
        case "tag":
            let tag = QueryLexer.words(in: value).joined(separator: " ")
            guard !tag.isEmpty else { throw invalid("expected a tag name") }
            if !query.tags.contains(tag) { query.tags.append(tag) }
        case "sort":
            let orders: [String: SearchSort] = [
                "relevance": .relevance, "date": .dateAscending, "+date": .dateAscending,
                "-date": .dateDescending, "num": .numberAscending, "+num": .numberAscending,
                "-num": .numberDescending,
            ]
            guard let order = orders[value.lowercased()] else {
                throw invalid("expected sort:relevance, sort:date, sort:-date, sort:num or sort:-num")
            }
            query.sort = order
        default:
            break
        }
    }

    /// `bounds` narrowed by the earlier `current` ones; an error if nothing is left.
    private static func intersect<Bound>(
        _ current: Bounds<Bound>?, _ bounds: Bounds<Bound>, _ token: QueryToken
    ) throws(QueryError) -> Bounds<Bound> {
        let result = current?.intersection(bounds) ?? bounds
        if let lower = result.lower, let upper = result.upper, lower > upper {
            throw .conflictingFilter(token: token.source, column: token.column)
        }
        return result
    }

    /// Splits `A..B`, `A..`, `..B` or `A` (meaning `A..A`); at least one side is present.
    private static func rangeParts(
        _ value: String, _ invalid: QueryError
    ) throws(QueryError) -> (Substring?, Substring?) {
        guard let dots = value.firstDots() else {
            guard !value.isEmpty else { throw invalid }
            return (Substring(value), Substring(value))
        }
        let lower = value[..<dots]
        let upper = value[value.index(dots, offsetBy: 2)...]
        guard upper.firstDots() == nil, !(lower.isEmpty && upper.isEmpty) else { throw invalid }
        return (lower.isEmpty ? nil : lower, upper.isEmpty ? nil : upper)
    }
}

/// The days covered by a full or partial date: `2010`, `2010-03` or `2010-03-05`.
private struct DatePeriod {
    var first: ComicDate
    var last: ComicDate

    init(year: Int) {
        first = ComicDate(year: year, month: 1, day: 1)
        last = ComicDate(year: year, month: 12, day: 31)
    }

    init(parsing text: Substring, _ invalid: (String) -> QueryError) throws(QueryError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let usage = "expected a date like 2010, 2010-03 or 2010-03-05"
        guard (1...3).contains(parts.count), parts[0].count == 4, let year = Parser.number(parts[0]), year > 0 else {
            throw invalid(usage)
        }
        guard parts.count > 1 else {
            first = ComicDate(year: year, month: 1, day: 1)
            last = ComicDate(year: year, month: 12, day: 31)
            return
        }
        guard parts[1].count <= 2, let month = Parser.number(parts[1]) else { throw invalid(usage) }
        guard (1...12).contains(month) else { throw invalid("month \(month) doesn't exist") }
        let days = ComicDate.days(inMonth: month, year: year)
        guard parts.count > 2 else {
            first = ComicDate(year: year, month: month, day: 1)
            last = ComicDate(year: year, month: month, day: days)
            return
        }
        guard parts[2].count <= 2, let day = Parser.number(parts[2]) else { throw invalid(usage) }
        let monthText = ComicDate(year: year, month: month, day: 1).description.prefix(7)
        guard (1...days).contains(day) else { throw invalid("\(monthText) has no day \(day)") }
        first = ComicDate(year: year, month: month, day: day)
        last = first
    }
}

extension ComicDate {
    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    var previousDay: ComicDate {
        if day > 1 { return ComicDate(year: year, month: month, day: day - 1) }
        if month > 1 {
            return ComicDate(year: year, month: month - 1, day: ComicDate.days(inMonth: month - 1, year: year))
        }
        return ComicDate(year: year - 1, month: 12, day: 31)
    }

    var nextDay: ComicDate {
        if day < ComicDate.days(inMonth: month, year: year) { return ComicDate(year: year, month: month, day: day + 1) }
        if month < 12 { return ComicDate(year: year, month: month + 1, day: 1) }
        return ComicDate(year: year + 1, month: 1, day: 1)
    }
}

extension String {
    func trimmingSeparators() -> String {
        guard let start = firstIndex(where: { !QueryLexer.isSeparator($0) }),
            let end = lastIndex(where: { !QueryLexer.isSeparator($0) })
        else { return "" }
        return String(self[start...end])
    }
}

extension StringProtocol {
    /// Where the first `..` starts, if any.
    func firstDots() -> Index? {
        var previousWasDot = false
        var index = startIndex
        while index < endIndex {
            if self[index] == "." {
                if previousWasDot { return self.index(before: index) }
                previousWasDot = true
            } else {
                previousWasDot = false
            }
            index = self.index(after: index)
        }
        return nil
    }
}
