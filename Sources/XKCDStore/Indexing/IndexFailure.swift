import XKCDModel

/// A comic that could not be indexed, as the last run left it.
public struct IndexFailure: Sendable, Equatable {
    public var id: Comic.ID
    public var resource: String
    public var message: String
}
