import XKCDEmbed
import XKCDKit

/// What a person at a terminal can do about a library error. The library's message says what
/// is wrong (and keeps its cause as a value); the command to run is the command line's to add,
/// as a server tells its clients something else (`APIError` in XKCDServer).
public enum Advice {
    /// `message`, the library's words for `error`, followed by what to do about it:
    /// "the index is empty; run 'xkcd-search index' first".
    public static func adding(to message: String, for error: any Error) -> String {
        message + (suffix(for: error) ?? "")
    }

    /// `error`'s own message followed by what to do about it.
    public static func line(for error: any Error) -> String {
        adding(to: String(describing: error), for: error)
    }

    /// A request's broken rule in the command line's words, naming its option: "--limit must be
    /// between 1 and 1000".
    ///
    /// - Parameter error: the rule the request's parameters broke.
    public static func commandLineWords(for error: RequestError) -> String {
        switch error {
        case .missing(.query): "give the query as words, or '-' to read it from standard input"
        case .missing(let parameter): "--\(optionName(parameter)) is missing"
        case .outOfRange(let parameter, _, let allowed): "--\(optionName(parameter)) must be \(allowed)"
        case .tooLong: error.description
        }
    }

    /// The option of the command line that sets `parameter`.
    private static func optionName(_ parameter: RequestParameter) -> String {
        switch parameter {
        case .query: "words"
        case .text: "passage"
        default: parameter.rawValue
        }
    }

    /// The advice for `error` as it follows its message, or nil when the message says all.
    static func suffix(for error: any Error) -> String? {
        switch error {
        case LibraryError.emptyIndex: "; run 'xkcd-search index' first"
        case LibraryError.notIndexed: "; run 'xkcd-search index' to fetch it"
        case LibraryError.noCurrentComic: "; show one first, e.g. 'xkcd-search show latest'"
        case LibraryError.notAFavourite(let n): " (add it with 'fav add \(n)')"
        case LibraryError.noFavourites: " (add one with 'fav add N')"
        case let problem as SemanticSearchError: suffix(for: problem)
        default: ErrorClass(of: error).indexProblem.map(suffix(for:))
        }
    }

    private static func suffix(for problem: IndexProblem) -> String {
        switch problem {
        case .notAVectorFile: " (scripts/export-vectors.sh writes one)"
        case .emptyFile(let path): ": build one there with 'xkcd-search index --db \(escaped(path))'"
        case .foreignDatabase: " (choose another file with --db)"
        case .damaged: "; move it away and run 'xkcd-search index' to build a new one"
        case .needsUpdate: " (copy it elsewhere, or run any command with write access to it)"
        case .rankingDataDamaged: "; run 'xkcd-search index --rebuild', or delete the index and run 'xkcd-search index'"
        }
    }

    /// Said after "searching by words only"; not on `stats`'s status line, which reports.
    private static func suffix(for problem: SemanticSearchError) -> String? {
        switch problem {
        case .noModel, .model(.modelMissing):
            "; set XKCD_SEARCH_MODEL to a model's directory, or run 'make model' in a source tree"
        case .model(.modelDamaged): "; run 'make model' again in a source tree to replace it"
        case .noVectors: "; run 'xkcd-search index' to add them"
        case .model, .unusableEmbedding: nil
        }
    }
}
