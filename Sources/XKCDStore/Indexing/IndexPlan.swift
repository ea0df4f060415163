import XKCDModel

/// The numbers an indexing run still has to ask for.
public struct IndexPlan: Sendable, Equatable {
    public var comics: [Comic.ID]
    public var explanations: [Comic.ID]

    public init(comics: [Comic.ID], explanations: [Comic.ID]) {
        self.comics = comics
        self.explanations = explanations
    }

    /// Every number that needs at least one request, in ascending order.
    public var ids: [Comic.ID] { Array(Set(comics).union(explanations)).sorted() }
}
