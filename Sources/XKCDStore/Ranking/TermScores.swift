import XKCDModel

/// BM25F scores of every comic holding at least one of the query's words.
public struct TermScores: Sendable {
    /// The distinct stems that the index holds, in query order.
    public var stems: [String]
    /// Query words none of whose stems the index holds.
    public var unknownWords: [String]
    /// Query words that no comic holds in exactly this form (perhaps misspelt, even when
    /// their stem is known: "dependancy" stems like "dependency").
    public var unseenWords: [String]
    /// For each query word, how many comics hold its rarest stem (0 when unknown).
    public var documentCounts: [String: Int]
    /// Score by comic id (dense; 0 for comics holding none of the stems). This array,
    /// ``matchedStems`` and ``fieldMatches`` are empty when no comic holds any of them, so
    /// look comics up within their counts.
    public var scores: [Double]
    /// How many of `stems` each comic holds, by comic id.
    /// Sixteen bits: a query of the longest allowed holds more than 255 stems.
    public var matchedStems: [UInt16]
    /// How many of `stems` each field holds: `fieldMatches[id * 4 + field]`, fields in the
    /// order title, alt, transcript, explanation.
    public var fieldMatches: [UInt8]
    /// Each field's length in tokens, `fieldLengths[id * 4 + field]`, as the ranking index holds
    /// them (shared with its cache, not copied).
    var fieldLengths: [Float]
    /// Ids of the comics holding at least one stem, ascending.
    public var candidates: [Comic.ID]
    /// How many comics the index holds.
    public var documentCount: Int
    /// False when documents changed after the ranking index was last built (an indexer run was
    /// interrupted or killed): its postings lack those comics, so what matches must be asked of
    /// FTS5 (``ComicDatabase/rankingIndexIsCurrent()``).
    public var isFromCurrentIndex: Bool

    /// Comics holding every stem.
    public var matchingAll: [Comic.ID] {
        candidates.filter { Int(matchedStems[$0]) == stems.count }
    }

    public func score(_ id: Comic.ID) -> Double {
        id < scores.count ? scores[id] : 0
    }

    /// Whether the query holds every word of the comic's title (by stem, as many stems as the
    /// title has words): a passage that names what a comic is about often names its title
    /// ("automation", "random number"), which is no quote.
    public func holdsWholeTitle(of id: Comic.ID) -> Bool {
        let fields = RankingIndex.fieldCount
        guard id >= 0, id * fields < fieldMatches.count, id * fields < fieldLengths.count else { return false }
        let titleLength = Int(fieldLengths[id * fields])
        return titleLength > 0 && Int(fieldMatches[id * fields]) >= titleLength
    }
}
