/// A line the REPL cannot act on, worded as one lowercase line; the session goes on after it.
public enum REPLError: Error, Equatable, CustomStringConvertible {
    /// A quote opened on the line and never closed.
    case unclosedQuote(Character)
    /// A shortcut that acts on the current comic before any comic was shown.
    case noCurrentComic
    /// `more` before any search.
    case noSearchToContinue
    /// `repl` typed inside the REPL.
    case alreadyInREPL
    /// What the command line parser or a command said, already one line.
    case command(String)

    public var description: String {
        switch self {
        case .unclosedQuote(let quote): "unclosed \(quote) quote"
        case .noCurrentComic: "no comic shown yet; type a number, 'l' (latest) or 'r' (random) first"
        case .noSearchToContinue: "no search to continue; type a query first"
        case .alreadyInREPL: "already in the REPL"
        case .command(let message): message
        }
    }
}
