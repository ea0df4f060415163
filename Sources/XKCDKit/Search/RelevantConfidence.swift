import Foundation

/// How sure `relevant` is of its first comic, in words: read from the first comic's score, its
/// lead over the second and its cosine similarity, by a logistic regression fitted on the real
/// passages of Benchmarks/Relevance (scripts/relevance-confidence.py). Inside 5 folds by source,
/// on the 528 passages, each ranked with the linked passages of the other folds only and the
/// situations written for every comic: the first comic was right for 86 % of those said to fit
/// well (a quarter of them), 43 % of those that might fit and 19 % of the long shots
/// (docs/ranking.md).
public enum RelevantConfidence: String, Sendable, Hashable, CaseIterable {
    case fitsWell = "fits well"
    case mightFit = "might fit"
    case longShot = "a long shot"

    /// The fitted coefficients: intercept, first score, lead, cosine. Fitted with the default
    /// ``RelevantSettings``; other settings change the scores and void them.
    static let coefficients = (intercept: -2.9789, firstScore: 1.0413, lead: 3.0810, similarity: 1.1650)

    /// The words for a first comic's score, lead over the second and cosine similarity.
    ///
    /// - Parameters:
    ///   - firstScore: the first comic's fused score.
    ///   - lead: the first's score less the second's (the first's whole score when alone).
    ///   - similarity: the first's cosine similarity to the passage.
    public init(firstScore: Double, lead: Double, similarity: Double) {
        let c = Self.coefficients
        let logit = c.intercept + c.firstScore * firstScore + c.lead * lead + c.similarity * similarity
        let probability = 1 / (1 + exp(-logit))
        self = probability >= 0.6 ? .fitsWell : probability >= 0.3 ? .mightFit : .longShot
    }
}
