/// How a comic's similarity to a query is made from those of its passages' vectors (passage 0
/// is its head: title, title text, transcript and the start of its explanation; the others, when
/// the index has them, passages of its explanation).
public enum PassageCombination: Sendable, Hashable {
    /// The most similar passage.
    case best
    /// The head alone, as if the comic had no other passage.
    case head
    /// The mean of the `count` most similar passages (fewer when the comic has fewer).
    case meanOfBest(Int)
    /// (1 − `weight`) × the head's similarity + `weight` × the best other passage's.
    case headAndBest(Double)

    /// The comic's similarity from its passages', in passage order.
    func combine(_ passages: [Float]) -> Float {
        guard let head = passages.first else { return 0 }
        switch self {
        case .best:
            return passages.max() ?? 0
        case .head:
            return head
        case .meanOfBest(let count):
            let best = passages.sorted(by: >).prefix(max(1, count))
            return best.reduce(0, +) / Float(best.count)
        case .headAndBest(let weight):
            guard let other = passages.dropFirst().max() else { return head }
            return Float(1 - weight) * head + Float(weight) * other
        }
    }
}
