import FoundationEssentials
import Glibc
import XKCDEmbed
import XKCDModel
import XKCDStore

/// Ranking by meaning: a description in the searcher's own words finds the comic even when it
/// shares few words with it.
///
/// The query's sentence vector is compared with every comic's (cosine similarity). The best
/// lexical results and the comics most similar in meaning are then ranked together by a
/// weighted sum of the two scores, each scaled to 0...1 over those candidates. A comic that
/// holds none of the query's words can come in on similarity alone (``SearchResult/Match/similar``).
///
/// What the words decide stays decided: filters and exclusions bind the similar comics too,
/// queries with phrases, fields or OR are ranked by words alone, a lexical first result far
/// ahead of the second (an exact title) stays first, and so do the comics holding the query as
/// a line of their title, title text or transcript (a remembered line, see ``lineShare``).
/// The settings were chosen on dev.tsv and Benchmarks/Relevance/descriptions.tsv and checked on
/// heldout.tsv and on lines sampled from the index (docs/semantic-search.md has the figures).
extension SearchEngine {
    /// The share of the meaning in the fused score. On dev / descriptions / held-out (MRR@10):
    /// 0.3 → 0.980 / 0.910 / 0.986, 0.45 → 1.000 / 0.913 / 0.986, 0.6 → 1.000 / 0.919 / 0.973,
    /// the last pushing a held-out quote down; words alone score 0.980 / 0.847 / 0.970.
    static let meaningWeight = 0.45
    /// Queries of fewer words are ranked by words alone: such a query is a title, a name or a
    /// word, which the lexical ranking finds first on every set, and it spares the model's cost.
    static let meaningMinimumWords = 3
    /// What a comic whose whole title the query holds (by stem) gains in the fused score, as in
    /// ``RelevantSettings/titleWeight``. On the situations of situations.tsv's tuning half searched
    /// (MRR@10): 0 → 0.579, 0.05 → 0.579, 0.1 → 0.595, 0.2 → 0.595; descriptions.tsv 0.960 at
    /// 0.1 and 0.942 at 0.2; dev.tsv (1.000) and heldout.tsv (0.986) the same at all three.
    static let titleWeight = 0.1
    /// What a comic that many other comics' explanations link to gains in the fused score, as in
    /// ``RelevantSettings/linkWeight``. On dev.tsv / descriptions.tsv / heldout.tsv / the
    /// situations of situations.tsv's tuning half searched (MRR@10): 0 → 1.000 / 0.967 / 0.986 /
    /// 0.626, 0.05 → 1.000 / 0.969 / 1.000 / 0.629, 0.1 → 1.000 / 0.975 / 1.000 / 0.630, 0.15 →
    /// 0.990 / 0.969 / 1.000 / 0.646: the most that leaves dev.tsv whole.
    static let linkWeight = 0.1
    /// How many comics linking to one earn it the whole link weight.
    public static let linksForFullPrior = 10
    /// How many of the comics nearest in meaning join the lexical candidates.
    static let meaningCandidates = 30
    /// How many of the best lexical results are ranked again with their similarity.
    static let fusionDepth = 100
    /// A lexical first result with this many times the second's score matched the query far
    /// better than anything else (an exact title): the meaning is not asked.
    static let decisiveRatio = 1.6
    /// A comic holding this share of the query's neighbouring word pairs side by side holds the
    /// query as a line of its own, maybe with a word left out or changed: its place is decided
    /// by the words. On 300 lines sampled from the index (3 in 10 with a word left out), MRR@10
    /// is 0.854 by words alone, 0.826 fused when only whole lines (1.0) kept their place, and
    /// 0.868 with 0.6; descriptions, dev.tsv and heldout.tsv score the same with either.
    static let lineShare = 0.6

    /// Whether the words alone found what the query is after, so that the meaning is not asked:
    /// the first result holds every word and is far ahead of the second (an exact title), or
    /// holds the query as a line of its own. Its place would not change, and the model costs a
    /// search process more than everything else it does.
    func isSettledByWords(_ ranking: Ranking) -> Bool {
        guard let first = ranking.ids.first, !ranking.partial.contains(first) else { return false }
        if ranking.lines.contains(first) { return true }
        guard ranking.ids.count > 1 else { return true }
        let score = { (id: Comic.ID) in ranking.scores?.score(id) ?? 0 }
        return score(first) >= Self.decisiveRatio * score(ranking.ids[1])
    }

    /// The words the sentence model reads for `query`, or nil when the query is ranked by words
    /// alone: no model, a comic number, filters only, query-language structure, or a short query.
    func meaningText(of query: SearchQuery) -> String? {
        guard sentenceModel != nil, query.exactComic == nil, query.sort == .relevance, let typed = query.text else {
            return nil
        }
        // A sentence's quoted speech is words like the others (``SearchQuery/isSentence``).
        let text = query.isSentence ? typed.phrasesAsWords : typed
        guard text.isPlainWords(allowingExclusions: true) else { return nil }
        let words = text.positiveTerms
        guard words.count >= Self.meaningMinimumWords else { return nil }
        return words.joined(separator: " ")
    }

    /// Ranks the best lexical results of `ranking` together with the comics nearest in meaning
    /// to `meaning`.
    ///
    /// - Throws: ``SemanticSearchError`` when the model or the index's vectors can't be used
    ///   (`ranking` is then unchanged), `StoreError` when the index can't be read.
    func fuseMeaning(
        of meaning: String, into ranking: inout Ranking, query: SearchQuery, in view: ComicDatabase.SearchView
    ) throws {
        let (vectors, model) = try embeddings(of: [meaning])
        let similarities = try nearestInMeaning(to: vectors, model: model, in: view).similarities
        let excluded = try query.text?.exclusions.map { Set(try view.comicIDs(matching: .or($0))) } ?? []
        try fuse(
            similarities, into: &ranking, excluding: excluded, weight: Self.meaningWeight,
            nearestCount: Self.meaningCandidates, titleBonus: Self.titleWeight,
            prior: { ids in
                Self.linkPrior(
                    counts: try view.linkingCounts(to: ids), weight: Self.linkWeight, fullAt: Self.linksForFullPrior)
            })
    }

    /// What each comic gains for the `counts` of other comics' explanations that link to it:
    /// `weight` × log(1 + links) / log(1 + `fullAt`), at most `weight`. The comics explain xkcd
    /// keeps coming back to are the ones people keep linking.
    static func linkPrior(counts: [Comic.ID: Int], weight: Double, fullAt links: Int) -> [Comic.ID: Double] {
        let full = log(1 + Double(max(links, 1)))
        return counts.mapValues { count in weight * min(1, log(1 + Double(count)) / full) }
    }

    /// The sentence vectors of `texts`, and the identity of the model that made them.
    ///
    /// - Throws: ``SemanticSearchError`` when the model can't be used.
    func embeddings(of texts: [String]) throws -> (vectors: [[Float]], model: String) {
        guard let sentenceModel else { throw SemanticSearchError.noModel }
        let (vectors, model) = try sentenceModel.embeddings(of: texts).get()
        // NaN from weights damaged where only some words reach them (the check when the model
        // was opened embeds one known text).
        guard vectors.allSatisfy(ComicVector.isUnitLength) else { throw SemanticSearchError.unusableEmbedding }
        return (queryAdapter.map { adapter in vectors.map(adapter.apply) } ?? vectors, model)
    }

    /// Each comic's cosine similarity (by number) to the nearest of `vectors`, and which of
    /// them that is.
    ///
    /// - Throws: ``SemanticSearchError/noVectors`` when the index has none for `model`.
    func nearestInMeaning(to vectors: [[Float]], model: String, in view: ComicDatabase.SearchView) throws
        -> (similarities: [Float], nearest: [Int])
    {
        var best: [Float] = []
        var nearest: [Int] = []
        for (index, vector) in vectors.enumerated() {
            let similarities =
                passageCombination == .best
                ? try view.vectorSimilarities(to: vector, model: model)
                : try view.passageSimilarities(to: vector, model: model).map(passageCombination.combine)
            guard !similarities.isEmpty else { throw SemanticSearchError.noVectors }
            if best.isEmpty {
                best = similarities
                nearest = [Int](repeating: 0, count: similarities.count)
                continue
            }
            for id in best.indices where id < similarities.count && similarities[id] > best[id] {
                best[id] = similarities[id]
                nearest[id] = index
            }
        }
        return (best, nearest)
    }

    /// Ranks the first ``fusionDepth`` results of `ranking` together with the `nearestCount`
    /// comics most similar in meaning, by `weight` × similarity + (1 − `weight`) × lexical score,
    /// each scaled to 0...1 over those candidates, plus `titleBonus` for a comic whose whole
    /// title the query holds and what `prior` gives the candidates. The comics `joining` are
    /// candidates too, as the query's filters and exclusions allow.
    func fuse(
        _ similarities: [Float], into ranking: inout Ranking, excluding excluded: Set<Comic.ID>, weight: Double,
        nearestCount: Int, titleBonus: Double, joining: [Comic.ID] = [],
        prior: (([Comic.ID]) throws -> [Comic.ID: Double])? = nil
    ) throws {
        // The comics nearest in meaning that the query's filters (as the lexical ranking read
        // them) and exclusions allow.
        let allowed = ranking.allowed
        var nearest = similarities.indices.filter { id in
            similarities[id] > 0 && !excluded.contains(id) && (allowed?.contains(id) ?? true)
        }
        nearest.sortPrefix(nearestCount) { a, b in
            similarities[a] > similarities[b] || (similarities[a] == similarities[b] && a < b)
        }

        let depth = min(Self.fusionDepth, ranking.ids.count)
        let lexicalHead = Array(ranking.ids[..<depth])
        let inHead = Set(lexicalHead)
        var newcomers = nearest.prefix(nearestCount).filter { !inHead.contains($0) }
        let joined = Set(newcomers)
        newcomers += joining.filter { id in
            !inHead.contains(id) && !joined.contains(id) && !excluded.contains(id) && (allowed?.contains(id) ?? true)
        }
        let candidates = lexicalHead + newcomers

        func lexical(_ id: Comic.ID) -> Double { ranking.scores?.score(id) ?? 0 }
        func similarity(_ id: Comic.ID) -> Double { id < similarities.count ? Double(similarities[id]) : 0 }
        let topLexical = lexicalHead.map(lexical).max() ?? 0
        let similarityRange = candidates.map(similarity).minAndMax ?? (0, 0)
        let spread = similarityRange.max - similarityRange.min
        let priors = try prior?(candidates) ?? [:]
        var fused: [Comic.ID: Double] = [:]
        for id in candidates {
            let words = topLexical > 0 ? lexical(id) / topLexical : 0
            let meaning = spread > 0 ? (similarity(id) - similarityRange.min) / spread : 0
            let title = ranking.scores?.holdsWholeTitle(of: id) == true ? titleBonus : 0
            fused[id] = (1 - weight) * words + weight * meaning + title + priors[id, default: 0]
        }
        var order = candidates.sorted { a, b in fused[a]! > fused[b]! || (fused[a] == fused[b] && a < b) }
        // Comics that hold the query as a line of theirs stay first, in the words' order.
        let pinned = lexicalHead.filter { ranking.lines.contains($0) }
        order.removeAll { pinned.contains($0) }
        order.insert(contentsOf: pinned, at: 0)
        // A newcomer may be further down the lexical results (it holds some of the words): it
        // moves up, and keeps its lexical kind of match.
        let moved = Set(newcomers)
        let rest = ranking.ids[depth...].filter { !moved.contains($0) }
        // A newcomer holding some of the words (past the partial matches ranked) is marked so;
        // only one holding none of them came in on its meaning alone.
        for id in moved.subtracting(ranking.ids[depth...]) {
            if lexical(id) > 0 { ranking.partial.insert(id) } else { ranking.similar.insert(id) }
        }
        // The rest keep their lexical order, and their scores the fused scale (``FusedScores``).
        ranking.ids = order + rest
        ranking.fused = FusedScores(ranked: fused, topLexical: topLexical, weight: weight)
    }
}

/// The scores of a fused ranking: those of the comics ranked with their meaning, and for the
/// rest, ranked by their words alone, their lexical score on the same scale, so that every score
/// of the query's results compares.
struct FusedScores {
    var ranked: [Comic.ID: Double]
    /// The best lexical score among those ranked, which scales the others'.
    var topLexical: Double
    /// The share of the meaning in the fused score.
    var weight: Double

    func score(_ id: Comic.ID, lexical: Double) -> Double {
        ranked[id] ?? (1 - weight) * (topLexical > 0 ? min(lexical / topLexical, 1) : 0)
    }
}

extension Sequence where Element: Comparable {
    /// The smallest and largest elements, or nil when there are none.
    fileprivate var minAndMax: (min: Element, max: Element)? {
        var result: (min: Element, max: Element)?
        for element in self {
            if let current = result {
                result = (Swift.min(current.min, element), Swift.max(current.max, element))
            } else {
                result = (element, element)
            }
        }
        return result
    }
}
