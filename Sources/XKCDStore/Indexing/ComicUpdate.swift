import FoundationEssentials
import XKCDModel

/// What one indexing step learnt about one comic number.
public struct ComicUpdate: Sendable {
    public enum Outcome<Value: Sendable>: Sendable {
        /// Nothing was asked this time.
        case unchanged
        /// `at`: the response's date (a mirror's file's), which decides whether an explanation is settled.
        case fetched(Value, at: Date)
        /// The comic does not exist (#404), or its explanation is not written yet.
        case absent
        case failed(String)
    }

    public var id: Comic.ID
    public var comic: Outcome<Comic>
    public var explanation: Outcome<Explanation>

    public init(id: Comic.ID, comic: Outcome<Comic>, explanation: Outcome<Explanation>) {
        self.id = id
        self.comic = comic
        self.explanation = explanation
    }
}
