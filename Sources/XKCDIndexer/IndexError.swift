import XKCDModel

/// Why an index run stopped before asking for any comic, worded for the person running it.
public enum IndexError: Error, Equatable, CustomStringConvertible {
    /// The latest comic number the source gave cannot be xkcd's: taking it would plan a request
    /// for every number up to it.
    case unbelievableLatest(Comic.ID, reason: String)
    /// The file of linked passages (`--linked-passages`) can't be used: why.
    case linkedPassages(String)

    public var description: String {
        switch self {
        case .unbelievableLatest(let id, let reason):
            "the latest comic number #\(id) that xkcd answered is not believable (\(reason)); nothing was indexed"
        case .linkedPassages(let reason):
            "the file of linked passages can't be used: \(reason); nothing was indexed"
        }
    }
}
