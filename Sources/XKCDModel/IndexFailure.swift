/// A comic that could not be indexed, as the last run left it.
public struct IndexFailure: Sendable, Equatable {
    public var id: Comic.ID
    public var resource: String
    public var message: String

    public init(id: Comic.ID, resource: String, message: String) {
        self.id = id
        self.resource = resource
        self.message = message
    }
}
