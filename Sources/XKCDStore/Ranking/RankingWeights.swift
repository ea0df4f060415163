/// The knobs of relevance ranking, chosen by measurement on the development set
/// (`make relevance`), not by guessing.
public struct RankingWeights: Sendable, Hashable {
    /// BM25F weight of a term occurrence in title, alt, transcript and explanation.
    public var fields: [Double] = [6, 3, 1.5, 1]
    /// BM25F length normalisation per field (0: none, 1: full).
    public var lengthNormalization: [Double] = [0.5, 0.5, 0.75, 0.75]
    public var k1 = 1.2
    /// Bonus for the share (by idf) of query words a comic holds anywhere. Measured on the
    /// development set (MRR@10, 50 queries): 0 → 0.970, 5 → 0.977, 10 → 0.963, 20 → 0.957
    /// with the title bonus at 5; field weights from 3,2,1,1 to 10,5,2,1 all within 0.003.
    public var coverage = 5.0
    /// Bonus for the share (by idf) of query words in the title.
    public var titleCoverage = 5.0
    /// Bonus for a title made of exactly the query's words: it ranks first.
    public var exactTitle = 100.0
    /// Bonus for holding the query's words in the form typed, not only their stem.
    public var exactForm = 1.0
    /// Bonus for holding all of the query's neighbouring word pairs side by side in the title,
    /// title text or transcript (a share of it for some). MRR@10 on the development set / on
    /// 47 known-item queries written apart from it (`Benchmarks/Relevance/heldout.tsv`) / on
    /// 300 lines sampled from the comics (`Relevance --sample-quotes 300`):
    /// 0 → 0.977 / 0.933 / 0.671, 1 → 0.977 / 0.936 / 0.785, 2 → 0.980 / 0.947 / 0.834,
    /// 3 → 0.980 / 0.949 / 0.854, 4 → 0.970 / 0.950 / 0.868, 8 → 0.970 / 0.951 / 0.885.
    /// Above 3 the descriptions of the development set lose more than the lines gain.
    public var proximity = 3.0
    /// Bonus for holding, word for word, a phrase quoted in a sentence (quoted speech, which is
    /// searched as words: see `SearchQuery.isSentence`), once per phrase.
    public var quotedSpeech = 10.0

    public init() {}
}
