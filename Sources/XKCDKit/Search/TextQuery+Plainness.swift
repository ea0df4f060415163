import XKCDQuery

extension TextQuery {
    /// Whether the query is only unscoped words, all of which must match.
    var isPlainWords: Bool { isPlainWords(allowingExclusions: false) }

    func isPlainWords(allowingExclusions: Bool) -> Bool {
        switch self {
        case .term(_, nil): true
        case .and(let operands):
            operands.allSatisfy { operand in
                switch operand {
                case .term(_, nil): true
                case .not: allowingExclusions
                default: false
                }
            }
        default: false
        }
    }

    /// The query with each word for which `isPhrase` holds made a phrase of it (which FTS5
    /// reads as its tokens in a row).
    func phrasingWords(where isPhrase: (String) throws -> Bool) rethrows -> TextQuery {
        switch self {
        case .term(let word, let field): try isPhrase(word) ? .phrase([word], field: field) : self
        case .and(let operands): .and(try operands.map { try $0.phrasingWords(where: isPhrase) })
        case .or(let operands): .or(try operands.map { try $0.phrasingWords(where: isPhrase) })
        case .not(let operand): .not(try operand.phrasingWords(where: isPhrase))
        case .prefix, .phrase: self
        }
    }

    /// The prefixes the query looks for (`tabl*`), outside exclusions.
    var positivePrefixes: [String] {
        switch self {
        case .prefix(let word, _): [word]
        case .and(let operands), .or(let operands): operands.flatMap { $0.positivePrefixes }
        default: []
        }
    }

    /// The top-level exclusions, or nil when there are none.
    var exclusions: [TextQuery]? {
        guard case .and(let operands) = self else { return nil }
        let excluded = operands.compactMap { operand -> TextQuery? in
            if case .not(let inner) = operand { inner } else { nil }
        }
        return excluded.isEmpty ? nil : excluded
    }
}
