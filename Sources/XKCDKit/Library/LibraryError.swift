import XKCDModel

/// A request the library cannot answer, worded as one lowercase line that says what is wrong.
///
/// What to do about it is the front end's to add: the command line says which command to run
/// (`Advice` in XKCDCommandLine), the server words it for a client of its API (`APIError`).
public enum LibraryError: Error, Equatable, CustomStringConvertible {
    /// The text is not a comic number, `latest` or `random`.
    case notANumber(String)
    /// Zero or a negative number.
    case belowFirst(Int)
    /// A number above the latest comic in the index.
    case notYetPublished(Comic.ID, latest: Comic.ID)
    /// #404: xkcd skipped it on purpose.
    case skipped404
    /// A number up to the latest that the index does not hold.
    case notIndexed(Comic.ID)
    /// Nothing is indexed yet.
    case emptyIndex
    /// The comic is indexed but explain xkcd has no explanation for it yet.
    case noExplanation(Comic.ID)
    /// `next`, `prev` or a command without a number before any comic was shown.
    case noCurrentComic
    /// `next` at the latest comic in the index.
    case nothingAfter(Comic.ID)
    /// `prev` at the first comic in the index.
    case nothingBefore(Comic.ID)
    case notAFavourite(Comic.ID)
    case noFavourites
    case noFavouritesTagged(String)
    /// A tag that is not one word of letters, digits, `-` and `_`.
    case invalidTag(String, reason: String)
    /// A favourites file that cannot be imported; nothing was changed.
    case malformedExport(source: String, reason: String)
    /// A favourites file naming a comic the index does not hold; nothing was changed.
    case importRefused(source: String, reason: String)
    /// A file to import that is missing or not readable.
    case cannotRead(path: String, reason: String)
    /// A file to export to that cannot be written.
    case cannotWrite(path: String, reason: String)

    /// What is wrong, as one lowercase line without a full stop.
    public var description: String {
        switch self {
        case .notANumber(let text): "\(quoted(text)) is not a comic number (try 327, #327, latest or random)"
        case .belowFirst(let n): "#\(n) does not exist: comics start at #1"
        case .notYetPublished(let n, let latest): "#\(n) does not exist yet: the latest is #\(latest)"
        case .skipped404: "#404 does not exist: xkcd skipped it on purpose (HTTP 404 Not Found)"
        case .notIndexed(let n): "#\(n) is not in the index"
        case .emptyIndex: "the index is empty"
        case .noExplanation(let n): "#\(n) has no explanation yet on explain xkcd"
        case .noCurrentComic: "no comic shown yet"
        case .nothingAfter(let n): "#\(n) is the latest comic: there is nothing after it"
        case .nothingBefore(let n):
            n == 1
                ? "#1 is the first comic: there is nothing before it"
                : "#\(n) is the first comic in the index: there is nothing before it"
        case .notAFavourite(let n): "#\(n) is not a favourite"
        case .noFavourites: "there are no favourites yet"
        case .noFavouritesTagged(let tag): "no favourite is tagged \(quoted(tag))"
        case .invalidTag(let tag, let reason): "\(quoted(tag)) is not a valid tag: \(reason)"
        case .malformedExport(let source, let reason):
            "\(escaped(source)) is not a favourites export, so nothing was imported: \(reason)"
        case .importRefused(let source, let reason): "nothing was imported from \(escaped(source)): \(reason)"
        case .cannotRead(let path, let reason): "cannot read \(escaped(path)): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write \(escaped(path)): \(reason)"
        }
    }
}
