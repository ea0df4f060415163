import FoundationEssentials
import Glibc
import XKCDModel

/// A query's words as ``ComicDatabase/SearchView/termScores(for:weights:)`` found them in the ranking
/// index: the postings of each distinct stem and of each exact form, and the words it lacks.
struct QueryTerms {
    var stems: [String] = []
    var blobs: [(documentCount: Int, postings: Data)] = []
    /// Postings of each exact form; only forms that stemming changes earn the exact-form boost.
    var exactForms: [(postings: Data, isStemmed: Bool)] = []
    var checkedForms: Set<String> = []
    var unknownWords: [String] = []
    var unseenWords: [String] = []
    var documentCounts: [String: Int] = [:]
    var tokenCount = 0
}

extension QueryTerms {
    /// Scores every comic holding one of the stems: BM25F over the fields, plus the coverage,
    /// title and exact-form bonuses of `weights`.
    func score(lengths: DocumentLengths, occurrenceWeights cachedWeights: [Double]?, weights: RankingWeights)
        -> TermScores
    {
        // A query of words no comic holds (a misspelling, before its correction is searched)
        // has nothing to add up, and the totals below are a hundred kilobytes to clear.
        let size = blobs.isEmpty ? 0 : lengths.maxID + 1
        let fieldCount = RankingIndex.fieldCount
        var scores = [Double](repeating: 0, count: size)
        var matched = [UInt16](repeating: 0, count: size)
        var titleMatched = [UInt8](repeating: 0, count: size)
        var fieldMatches = [UInt8](repeating: 0, count: size * fieldCount)
        var titleShare = [Double](repeating: 0, count: size)
        var coverageShare = [Double](repeating: 0, count: size)
        let n = Double(max(lengths.documentCount, 1))
        let idfs = blobs.map { log(1 + (n - Double($0.documentCount) + 0.5) / (Double($0.documentCount) + 0.5)) }
        let idfTotal = max(idfs.reduce(0, +), 1e-9)
        // Raw buffers: this loop runs once per posting, thousands of times for a common word,
        // and array accesses would check bounds and uniqueness each time.
        scores.withUnsafeMutableBufferPointer { scores in
            matched.withUnsafeMutableBufferPointer { matched in
                titleMatched.withUnsafeMutableBufferPointer { titleMatched in
                    fieldMatches.withUnsafeMutableBufferPointer { fieldMatches in
                        titleShare.withUnsafeMutableBufferPointer { titleShare in
                            coverageShare.withUnsafeMutableBufferPointer { coverageShare in
                                let totals = PostingTotals(
                                    scores: scores, matched: matched, titleMatched: titleMatched,
                                    fieldMatches: fieldMatches,
                                    titleShare: titleShare, coverageShare: coverageShare)
                                lengths.lengths.withUnsafeBufferPointer { documentLengths in
                                    let computed = ComputedOccurrenceWeights(
                                        fieldWeights: weights.fields, b: weights.lengthNormalization,
                                        averages: lengths.averages,
                                        lengths: documentLengths)
                                    for (index, blob) in blobs.enumerated() {
                                        let idf = idfs[index]
                                        let share = idf / idfTotal
                                        blob.postings.withUnsafeBytes { bytes in
                                            // One loop per source of weights, so that the choice is not made per field.
                                            if let cachedWeights {
                                                cachedWeights.withUnsafeBufferPointer { values in
                                                    totals.add(
                                                        bytes, idf: idf, share: share, k1: weights.k1,
                                                        weights: CachedOccurrenceWeights(values: values))
                                                }
                                            } else {
                                                totals.add(
                                                    bytes, idf: idf, share: share, k1: weights.k1, weights: computed)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let stemmedForms = exactForms.filter { $0.isStemmed }.count
        let exactShare = stemmedForms == 0 ? 0 : weights.exactForm / Double(stemmedForms)
        var titleForms = [UInt8](repeating: 0, count: size)
        var candidates: [Comic.ID] = []
        // Through buffers, as above: a write to an array in a loop checks its uniqueness each
        // time, and a common word's candidates are thousands.
        scores.withUnsafeMutableBufferPointer { scores in
            titleForms.withUnsafeMutableBufferPointer { titleForms in
                matched.withUnsafeBufferPointer { matched in
                    for form in exactForms {
                        form.postings.withUnsafeBytes { bytes in
                            var offset = 0
                            var id = 0
                            while let entry = Varint.read(bytes, at: &offset) {
                                id &+= entry >> 1  // wrapping: a damaged blob must not trap
                                guard id >= 0, id < size, matched[id] > 0 else { continue }
                                if form.isStemmed { scores[id] += exactShare }
                                if entry & 1 != 0 { titleForms[id] &+= 1 }
                            }
                        }
                    }
                    // In number order by a pass over the counts, not a sort: see `Array.sortPrefix` in
                    // XKCDKit for what the standard library's sort costs a one-search process. Without a
                    // branch per comic (whether one is a candidate is as good as random, and mispredicting
                    // it cost more than the rest of the pass), so with room for every comic: a slot past
                    // `count` is written and left, which an `Int` allows.
                    candidates = [Comic.ID](unsafeUninitializedCapacity: size) { buffer, count in
                        for id in 0..<size {
                            buffer[count] = id
                            count &+= matched[id] > 0 ? 1 : 0
                        }
                    }
                    titleMatched.withUnsafeBufferPointer { titleMatched in
                        titleShare.withUnsafeBufferPointer { titleShare in
                            coverageShare.withUnsafeBufferPointer { coverageShare in
                                lengths.lengths.withUnsafeBufferPointer { documentLengths in
                                    for id in candidates {
                                        scores[id] +=
                                            weights.coverage * coverageShare[id] + weights.titleCoverage
                                            * titleShare[id]
                                        // The title is the query, word for word ("is it worth the time"); in the very
                                        // forms typed it beats a title that only stems alike ("Dependencies").
                                        if Int(titleMatched[id]) == stems.count,
                                            Int(documentLengths[id * fieldCount]) == tokenCount
                                        {
                                            let isExactForm = Int(titleForms[id]) == exactForms.count
                                            scores[id] += isExactForm ? weights.exactTitle : weights.exactTitle / 2
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return TermScores(
            stems: stems, unknownWords: unknownWords, unseenWords: unseenWords,
            documentCounts: documentCounts, scores: scores, matchedStems: matched, fieldMatches: fieldMatches,
            fieldLengths: lengths.lengths, candidates: candidates,
            documentCount: lengths.documentCount, isFromCurrentIndex: lengths.isCurrent)
    }
}

/// Where ``PostingTotals/add(_:idf:share:k1:weights:)`` finds the BM25F weight of one occurrence.
private protocol OccurrenceWeightSource {
    /// The weight of an occurrence in `field` of the comic whose field is `index` (`id * 4 + field`).
    func weight(at index: Int, field: Int) -> Double
}

/// Weights computed once per generation (``RankingCache/occurrenceWeights(_:weights:)``).
private struct CachedOccurrenceWeights: OccurrenceWeightSource {
    let values: UnsafeBufferPointer<Double>

    @inline(__always)
    func weight(at index: Int, field: Int) -> Double { values[index] }
}

/// Weights computed as met, by the same expression as the cached ones.
private struct ComputedOccurrenceWeights: OccurrenceWeightSource {
    let fieldWeights: [Double], b: [Double], averages: [Double]
    let lengths: UnsafeBufferPointer<Float>

    @inline(__always)
    func weight(at index: Int, field: Int) -> Double {
        DocumentLengths.occurrenceWeight(
            fieldWeight: fieldWeights[field], b: b[field], length: lengths[index], average: averages[field])
    }
}

/// The per-comic totals a query's postings are added into, by comic id.
private struct PostingTotals {
    let scores: UnsafeMutableBufferPointer<Double>
    let matched: UnsafeMutableBufferPointer<UInt16>
    let titleMatched: UnsafeMutableBufferPointer<UInt8>
    /// `[id * 4 + field]`.
    let fieldMatches: UnsafeMutableBufferPointer<UInt8>
    let titleShare: UnsafeMutableBufferPointer<Double>
    let coverageShare: UnsafeMutableBufferPointer<Double>

    /// Adds one stem's postings: its BM25F term score, its share of the query's idf, and the
    /// fields holding it. Comics past the totals' end are read past and left out.
    @inline(__always)
    func add(
        _ postings: UnsafeRawBufferPointer, idf: Double, share: Double, k1: Double, weights: some OccurrenceWeightSource
    ) {
        let size = scores.count
        var reader = PostingsReader(postings)
        while let (id, mask) = reader.next() {
            let isCounted = id < size
            var weighted = 0.0
            // The mask's fields in order, as their frequencies follow it.
            var fields = UInt32(mask) & ((1 << RankingIndex.fieldCount) - 1)
            while fields != 0 {
                let field = fields.trailingZeroBitCount
                fields &= fields &- 1
                guard let frequency = reader.frequency() else { return }
                guard isCounted else { continue }
                let index = id &* RankingIndex.fieldCount &+ field
                fieldMatches[index] &+= 1
                // (weight / norm) × frequency, where the norm was once divided per posting: a
                // score may differ in its last bit; the 230-query mix of the Search benchmark
                // ranks and scores the same.
                weighted += weights.weight(at: index, field: field) * Double(frequency)
            }
            guard isCounted else { continue }
            matched[id] &+= 1
            scores[id] += idf * weighted / (k1 + weighted)
            coverageShare[id] += share
            if mask & 1 != 0 {
                titleShare[id] += share
                titleMatched[id] &+= 1
            }
        }
    }
}
