import Foundation
import GRDB
import XKCDModel

extension ComicDatabase.Snapshot {
    /// The comics ``comicIDs(matching:)`` finds, read from the ranking index's postings instead
    /// of FTS5; nil where only FTS5 can tell, or when the index is being updated.
    ///
    /// FTS5 steps a virtual-table row for every comic it matches, which is slow per comic: `pur*` or `advice OR mass` cost a third of their search that way. The postings
    /// hold every stemmed token of every field, made by the same tokenizer as FTS5's index, so
    /// a word, a prefix, OR, exclusions and field scopes are sets of comics combined here as
    /// bitsets, mirroring ``FTS5Expression`` operand by operand.
    ///
    /// Left to FTS5: phrases and words of more than one token (which need positions), a prefix
    /// shared by more than ``prefixTermLimit`` stems, a query of exclusions only, and an index
    /// whose documents changed since its ranking postings were built.
    func comicIDsFromPostings(matching text: TextQuery) throws -> [Comic.ID]? {
        let lengths = try rankingCache.documentLengths(db)
        guard lengths.isCurrent else { return nil }
        // The root as FTS5Expression renders it: its positive operands and its exclusions. One
        // of exclusions only is every comic but those, which FTS5's statement lists.
        let operands: [TextQuery] = if case .and(let list) = text { list } else { [text] }
        guard operands.contains(where: { if case .not = $0 { false } else { true } }) else { return nil }
        let evaluator = BooleanEvaluator(
            db: db, tokenizer: try rankingCache.tokenizers(db).stems, lookup: try postingsLookup(), maxID: lengths.maxID)
        guard case .matches(let matched)? = try evaluator.evaluate(.and(operands)) else { return nil }
        return matched.ids
    }

    /// Prefixes of more stems than this are left to FTS5's prefix index ("s*", "re*").
    static let prefixTermLimit = 512
}

/// Comic numbers as a bitset: the few sets a boolean query combines are a few hundred bytes
/// each, and intersecting them is a word at a time.
struct ComicSet {
    private var bits: [UInt64]

    init(maxID: Int) {
        bits = [UInt64](repeating: 0, count: maxID / 64 + 1)
    }

    @inline(__always)
    mutating func insert(_ id: Int) {
        guard id >= 0, id / 64 < bits.count else { return }
        bits[id / 64] |= 1 << UInt64(id % 64)
    }

    mutating func formUnion(_ other: ComicSet) {
        for index in bits.indices { bits[index] |= other.bits[index] }
    }

    mutating func formIntersection(_ other: ComicSet) {
        for index in bits.indices { bits[index] &= other.bits[index] }
    }

    mutating func subtract(_ other: ComicSet) {
        for index in bits.indices { bits[index] &= ~other.bits[index] }
    }

    /// The members, ascending.
    var ids: [Int] {
        var ids: [Int] = []
        for (index, word) in bits.enumerated() {
            var rest = word
            while rest != 0 {
                ids.append(index * 64 + rest.trailingZeroBitCount)
                rest &= rest &- 1
            }
        }
        return ids
    }
}

/// Evaluates a ``TextQuery`` over the ranking postings, as ``FTS5Expression`` renders it.
private struct BooleanEvaluator {
    let db: Database
    let tokenizer: any FTS5Tokenizer
    /// The ranking index's lookup of one term (``ComicDatabase/Snapshot/postingsLookup()``).
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
            return try token(of: kept.joined(separator: " ")).map { try comics(holding: $0, in: field) }.map(Operand.matches)
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

    /// nil when more than ``ComicDatabase/Snapshot/prefixTermLimit`` stems start with `prefix`.
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
                    guard termCount <= ComicDatabase.Snapshot.prefixTermLimit else {
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
