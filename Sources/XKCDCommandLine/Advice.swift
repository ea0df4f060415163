import XKCDEmbed
import XKCDKit
// StoreError: the index file's problems reach the terminal as the store words them, and the
// advice for each is added here. Nothing else of the store is used.
import XKCDStore

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

    /// The advice for `error` as it follows its message, or nil when the message says all.
    static func suffix(for error: any Error) -> String? {
        switch error {
        case LibraryError.emptyIndex: "; run 'xkcd-search index' first"
        case LibraryError.notIndexed: "; run 'xkcd-search index' to fetch it"
        case LibraryError.noCurrentComic: "; show one first, e.g. 'xkcd-search show latest'"
        case LibraryError.notAFavourite(let n): " (add it with 'fav add \(n)')"
        case LibraryError.noFavourites: " (add one with 'fav add N')"
        case let problem as SemanticSearchError: suffix(for: problem)
        case let problem as StoreError: suffix(for: problem)
        default: nil
        }
    }

    private static func suffix(for problem: StoreError) -> String? {
        switch problem {
        case .notAVectorFile: " (scripts/export-vectors.sh writes one)"
        case .emptyFile(let path): ": build one there with 'xkcd-search index --db \(escaped(path))'"
        case .foreignDatabase: " (choose another file with --db)"
        case .damaged: "; move it away and run 'xkcd-search index' to build a new one"
        case .needsUpdate: " (copy it elsewhere, or run any command with write access to it)"
        default: nil
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
