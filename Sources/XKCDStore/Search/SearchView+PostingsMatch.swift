import GRDB
import XKCDModel

extension ComicDatabase.SearchView {
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
            db: db, tokenizer: try rankingCache.tokenizers(db).stems, lookup: try postingsLookup(), maxID: lengths.maxID
        )
        guard case .matches(let matched)? = try evaluator.evaluate(.and(operands)) else { return nil }
        return matched.ids
    }

    /// Prefixes of more stems than this are left to FTS5's prefix index ("s*", "re*").
    static let prefixTermLimit = 512
}
