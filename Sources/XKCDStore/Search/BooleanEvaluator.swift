import GRDB
import XKCDModel

/// Evaluates a ``TextQuery`` over the ranking postings, as ``FTS5Expression`` renders it.
struct BooleanEvaluator {
    let db: Database
    let tokenizer: any FTS5Tokenizer
    /// The ranking index's lookup of one term (``ComicDatabase/SearchView/postingsLookup()``).
    let lookup: Statement
    let maxID: Int

    /// What an operand comes to: nothing searchable (FTS5Expression leaves it out), or the
    /// comics it matches. nil from ``evaluate(_:)`` means only FTS5 can tell.
    enum Operand {
        case dropped
        case matches(ComicSet)
    }

    func evaluate(_ text: TextQuery) throws -> Operand? {
        switch text {
        case .term(let word, let field):
            guard FTS5Expression.hasToken(word) else { return .dropped }
            return try token(of: word).map { try comics(holding: $0, in: field) }.map(Operand.matches)
        case .phrase(let words, let field):
            let kept = words.filter(FTS5Expression.hasToken)
            guard !kept.isEmpty else { return .dropped }
            // A phrase of one token is that token; longer ones need positions.
            return try token(of: kept.joined(separator: " ")).map { try comics(holding: $0, in: field) }.map(
                Operand.matches)
        case .prefix(let word, let field):
            guard FTS5Expression.hasToken(word) else { return .dropped }
            guard let prefix = try token(of: word) else { return nil }
            return try comics(holdingTermsStartingWith: prefix, in: field).map(Operand.matches)
        case .and(let operands):
            var matched: ComicSet?
            var excluded = ComicSet(maxID: maxID)
            for operand in operands {
                if case .not(let inner) = operand {
                    guard let result = try evaluate(inner) else { return nil }
                    if case .matches(let set) = result { excluded.formUnion(set) }
                    continue
                }
                guard let result = try evaluate(operand) else { return nil }
                guard case .matches(let set) = result else { continue }
                if matched == nil { matched = set } else { matched!.formIntersection(set) }
            }
            guard var matched else { return .dropped }
            matched.subtract(excluded)
            return .matches(matched)
        case .or(let operands):
            var matched: ComicSet?
            for operand in operands {
                guard let result = try evaluate(operand) else { return nil }
                guard case .matches(let set) = result else { continue }
                if matched == nil { matched = set } else { matched!.formUnion(set) }
            }
            return matched.map(Operand.matches) ?? .dropped
        case .not:
            // Only meaningful beside a word (see `.and`); FTS5Expression drops it elsewhere.
            return .dropped
        }
    }

    /// The one token FTS5 makes of `text`, or nil when it makes none or several.
    private func token(of text: String) throws -> String? {
        var tokens: [String] = []
        try RankingIndex.forEachToken(in: text, tokenizer: tokenizer) { tokens.append($0) }
        return tokens.count == 1 ? tokens[0] : nil
    }

    private func comics(holding term: String, in field: SearchField?) throws -> ComicSet {
        var set = ComicSet(maxID: maxID)
        try lookup.forEachRow(binding: [.text(term)]) { row in add(row.bytes(1), in: field, to: &set) }
        return set
    }

    /// nil when more than ``ComicDatabase/SearchView/prefixTermLimit`` stems start with `prefix`.
    private func comics(holdingTermsStartingWith prefix: String, in field: SearchField?) throws -> ComicSet? {
        var set = ComicSet(maxID: maxID)
        var termCount = 0
        let prefixBytes = Array(prefix.utf8)
        // Terms are in byte order (BINARY), so those starting with the prefix follow it in a
        // run; the scan ends at the first that does not. Exact forms ("=word") never start
        // with a token's first byte.
        var isTooBroad = false
        do {
            try db.cachedStatement(sql: "SELECT term, postings FROM rankingTerm WHERE term >= ? ORDER BY term")
                .forEachRow(binding: [.text(prefix)]) { row in
                    guard row.bytes(0).starts(with: prefixBytes) else { throw EndOfRun() }
                    termCount += 1
                    guard termCount <= ComicDatabase.SearchView.prefixTermLimit else {
                        isTooBroad = true
                        throw EndOfRun()
                    }
                    add(row.bytes(1), in: field, to: &set)
                }
        } catch is EndOfRun {}
        return isTooBroad ? nil : set
    }

    /// Stops a scan of rows early.
    private struct EndOfRun: Error {}

    /// Adds the comics of one postings blob (see ``PostingsReader``) holding the term in `field`,
    /// or in any field.
    private func add(_ postings: UnsafeRawBufferPointer, in field: SearchField?, to set: inout ComicSet) {
        // Bits in searchDocument's order, as RankingIndex writes them.
        let fieldMask: UInt8 =
            switch field {
            case nil: 0xFF
            case .title: 1
            case .alt: 2
            case .transcript: 4
            case .explanation: 8
            }
        var reader = PostingsReader(postings)
        while let (id, mask) = reader.next() {
            for _ in 0..<mask.nonzeroBitCount {
                guard reader.frequency() != nil else { return }
            }
            if mask & fieldMask != 0 { set.insert(id) }
        }
    }
}
