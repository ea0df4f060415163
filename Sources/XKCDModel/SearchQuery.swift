/// A parsed search: free text plus the filters and order that narrow it.
///
/// `XKCDQuery.QueryParser` builds one from what the user typed; the store renders
/// ``text`` as an FTS5 `MATCH` expression and the other properties as SQL conditions.
/// Nothing here is SQL: words are kept as typed (the store lowercases, escapes and
/// tokenizes them).
///
/// ```swift
/// // title:"bobby tables" OR sql -drop year:2007..2010 sort:-date
/// SearchQuery(
///     text: .and([
///         .or([.phrase(["bobby", "tables"], field: .title), .term("sql", field: nil)]),
///         .not(.term("drop", field: nil)),
///     ]),
///     dateRange: Bounds(lower: ComicDate(year: 2007, month: 1, day: 1),
///                       upper: ComicDate(year: 2010, month: 12, day: 31)),
///     sort: .dateDescending)
/// ```
///
/// All conditions combine with AND. A query with filters but no ``text`` lists every
/// comic that passes the filters (the store picks date order for `.relevance`).
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
    /// The full-text part; nil when the query has only filters (or is empty).
    ///
    /// At the root this may be made only of exclusions (`.not`, or an `.and` of `.not`s):
    /// that means "every comic except those matching", see ``TextQuery/isExclusionOnly``.
    public var text: TextQuery?
    /// Set when the whole text part is one bare number, `327` or `#327`.
    ///
    /// ``text`` then still holds that number as a term (`.term("327", field: nil)`),
    /// so the store shows the comic itself first and text matches of the number after.
    public var exactComic: Comic.ID?
    /// `num:` filters, inclusive; several are intersected.
    public var numberRange: Bounds<Comic.ID>?
    /// `year:`, `date:`, `before:`, `after:` filters as inclusive days; several are intersected.
    ///
    /// `before:2010` is `..2009-12-31` and `after:2010-03` is `2010-04-01..`: a partial date
    /// stands for its whole period, which `before:`/`after:` exclude.
    public var dateRange: Bounds<ComicDate>?
    /// `is:fav`: only favourite comics.
    public var isFavourite: Bool
    /// `tag:NAME` filters, as typed (`tag:"two  words"` becomes `two words`), without
    /// duplicates; a comic must carry every tag.
    public var tags: [String]
    /// The requested order; `.relevance` unless a `sort:` filter says otherwise.
    public var sort: SearchSort
    /// Set when the text reads as a sentence rather than query language (a description,
    /// see `XKCDQuery.QueryParser`): its phrases are quoted speech, which may be misremembered,
    /// so they are not required: their words are searched as words, and comics holding a phrase
    /// exactly rank higher. The text form does not show it: the parser tells it again from the
    /// words, except when the leading "the one where" it leaves out was needed to make a
    /// sentence (`the one where he says "hi"` is `he says "hi"`, which reads as query language).
    public var isSentence: Bool

    public init(
        text: TextQuery? = nil, exactComic: Comic.ID? = nil, numberRange: Bounds<Comic.ID>? = nil,
        dateRange: Bounds<ComicDate>? = nil, isFavourite: Bool = false, tags: [String] = [],
        sort: SearchSort = .relevance, isSentence: Bool = false
    ) {
        self.text = text
        self.exactComic = exactComic
        self.numberRange = numberRange
        self.dateRange = dateRange
        self.isFavourite = isFavourite
        self.tags = tags
        self.sort = sort
        self.isSentence = isSentence
    }

    /// True when there is neither text nor any filter (an empty or blank query).
    ///
    /// A `sort:` on its own does not count: there is still nothing to search.
    public var isEmpty: Bool {
        text == nil && exactComic == nil && numberRange == nil && dateRange == nil && !isFavourite
            && tags.isEmpty
    }

    /// True when the query has conditions but no full-text part, so it only lists comics.
    public var isFilterOnly: Bool { text == nil && !isEmpty }

    /// The canonical text form, which parses back to an equal query.
    ///
    /// Filters come after the text, in a fixed order, with dates written out in full:
    /// `title:"bobby tables" sql num:1..500 date:2007-01-01..2010-12-31 is:fav sort:-date`.
    public var description: String {
        var parts: [String] = []
        if let text {
            parts.append(text.description)
        } else if let exactComic {
            parts.append("#\(exactComic)")
        }
        if let numberRange {
            parts.append("num:" + numberRange.rangeText { String($0) })
        }
        if let dateRange {
            parts.append("date:" + dateRange.rangeText { $0.description })
        }
        if isFavourite { parts.append("is:fav") }
        for tag in tags {
            let needsQuotes = tag.contains { $0.isWhitespace || "()".contains($0) }
            parts.append("tag:" + (needsQuotes ? "\"\(tag)\"" : tag))
        }
        if sort != .relevance { parts.append("sort:" + sort.rawValue) }
        return parts.joined(separator: " ")
    }
}

/// A range whose ends are both optional and both inclusive: `num:100..`, `date:..2010-06-30`.
///
/// The parser guarantees `lower <= upper` when both are set (a reversed or contradictory
/// range is a `QueryError`).
public struct Bounds<Bound: Comparable & Sendable & Hashable>: Sendable, Hashable {
    /// The smallest value allowed, inclusive; nil for no lower limit.
    public var lower: Bound?
    /// The largest value allowed, inclusive; nil for no upper limit.
    public var upper: Bound?

    public init(lower: Bound?, upper: Bound?) {
        self.lower = lower
        self.upper = upper
    }

    /// The range holding just `value`.
    public init(exactly value: Bound) {
        self.init(lower: value, upper: value)
    }

    /// Whether `value` lies within the bounds.
    public func contains(_ value: Bound) -> Bool {
        if let lower, value < lower { return false }
        if let upper, value > upper { return false }
        return true
    }

    /// The values allowed by both `self` and `other` (possibly none).
    public func intersection(_ other: Bounds) -> Bounds {
        func pick(_ a: Bound?, _ b: Bound?, _ better: (Bound, Bound) -> Bound) -> Bound? {
            guard let a else { return b }
            guard let b else { return a }
            return better(a, b)
        }
        return Bounds(lower: pick(lower, other.lower, max), upper: pick(upper, other.upper, min))
    }

    func rangeText(_ show: (Bound) -> String) -> String {
        if let lower, let upper, lower == upper { return show(lower) }
        return (lower.map(show) ?? "") + ".." + (upper.map(show) ?? "")
    }
}

/// The order of search results.
public enum SearchSort: String, Sendable, Hashable, CaseIterable {
    /// Best match first (bm25); for a filter-only query the store uses date order.
    case relevance
    /// `sort:date`, oldest first.
    case dateAscending = "date"
    /// `sort:-date`, newest first.
    case dateDescending = "-date"
    /// `sort:num`, lowest comic number first.
    case numberAscending = "num"
    /// `sort:-num`, highest comic number first.
    case numberDescending = "-num"
}

/// A part of a comic that a word can be restricted to, as in `title:tables`.
public enum SearchField: String, Sendable, Hashable, CaseIterable {
    case title, alt, transcript, explanation
}

/// The full-text part of a ``SearchQuery``, as a tree.
///
/// Leaves keep the user's words exactly as typed (`c++`, `don't`, `AT&T`, `NEAR`);
/// the store lowercases, escapes and tokenizes them. A scope such as `title:(a OR b)`
/// is pushed down, so only leaves carry a ``SearchField`` (nil means every field).
///
/// Shape guarantees made by the parser, which keep rendering to FTS5 simple:
/// - `.and` and `.or` have at least two operands; an `.and` never directly holds an `.and`.
/// - `.or` operands are never `.not`, and every `.or` operand matches something by itself.
/// - A `.not` appears only as an `.and` operand next to at least one positive operand
///   (render `(p1 AND p2) NOT (n1 OR n2)`), or at the root, alone or in an
///   exclusion-only `.and` (see ``isExclusionOnly``).
/// - Phrases hold at least one word.
public indirect enum TextQuery: Sendable, Hashable, CustomStringConvertible {
    /// One word as typed, such as `tables` or `c++`.
    case term(String, field: SearchField?)
    /// `foo*`: words starting with the given text (the `*` is not included).
    case prefix(String, field: SearchField?)
    /// `"bobby tables"`: these words next to each other, in order.
    case phrase([String], field: SearchField?)
    /// Every operand must match (words side by side, or a parenthesised group).
    case and([TextQuery])
    /// At least one operand must match (`a OR b`, `a | b`).
    case or([TextQuery])
    /// `-word`, `-"a phrase"`, `-(a b)`: comics matching the operand are left out.
    case not(TextQuery)

    /// Every word the user typed that isn't excluded, in order, for typo correction and
    /// highlighting. Phrases contribute each word; prefixes contribute nothing.
    public var positiveTerms: [String] {
        var terms: [String] = []
        collectPositiveTerms(into: &terms)
        return terms
    }

    private func collectPositiveTerms(into terms: inout [String]) {
        switch self {
        case .term(let word, _): terms.append(word)
        case .prefix: break
        case .phrase(let words, _): terms.append(contentsOf: words)
        case .and(let operands), .or(let operands):
            for operand in operands { operand.collectPositiveTerms(into: &terms) }
        case .not: break
        }
    }

    /// True when this (root) query only excludes: `-foo`, `-foo -"a b"`.
    ///
    /// It then means "every comic except those matching any of the exclusions", which the
    /// store renders as `rowid NOT IN (SELECT rowid … MATCH 'foo OR "a b"')`.
    public var isExclusionOnly: Bool {
        switch self {
        case .not: true
        case .and(let operands): operands.allSatisfy { if case .not = $0 { true } else { false } }
        default: false
        }
    }

    /// The same query with words replaced, for "did you mean" suggestions.
    ///
    /// Keys are matched exactly against the words of terms and phrases (as in
    /// ``positiveTerms``); prefixes and unmapped words are kept. Excluded words are
    /// replaced too, so a corrected query stays consistent.
    ///
    /// ```swift
    /// TextQuery.term("tabels", field: .title).replacingTerms(["tabels": "tables"])
    /// // .term("tables", field: .title)
    /// ```
    public func replacingTerms(_ map: [String: String]) -> TextQuery {
        switch self {
        case .term(let word, let field): .term(map[word] ?? word, field: field)
        case .prefix: self
        case .phrase(let words, let field): .phrase(words.map { map[$0] ?? $0 }, field: field)
        case .and(let operands): .and(operands.map { $0.replacingTerms(map) })
        case .or(let operands): .or(operands.map { $0.replacingTerms(map) })
        case .not(let operand): .not(operand.replacingTerms(map))
        }
    }

    /// The canonical query syntax for this tree, e.g. `title:"bobby tables" (sql OR db) -drop`.
    public var description: String {
        switch self {
        case .term(let word, let field):
            // A word that would read back as an operator is written as a one-word phrase.
            let text = (word == "OR" || word == "|") ? "\"\(word)\"" : word
            return (field.map { $0.rawValue + ":" } ?? "") + text
        case .prefix(let word, let field):
            return (field.map { $0.rawValue + ":" } ?? "") + word + "*"
        case .phrase(let words, let field):
            return (field.map { $0.rawValue + ":" } ?? "") + "\"" + words.joined(separator: " ") + "\""
        case .and(let operands):
            return operands.map { operand in
                if case .and = operand { "(\(operand))" } else { operand.description }
            }.joined(separator: " ")
        case .or(let operands):
            return operands.map { operand in
                switch operand {
                case .and, .or: "(\(operand))"
                default: operand.description
                }
            }.joined(separator: " OR ")
        case .not(let operand):
            let text = operand.description
            switch operand {
            case .and, .or: return "-(\(text))"
            default: return text.hasPrefix("-") ? "-(\(text))" : "-" + text
            }
        }
    }
}
