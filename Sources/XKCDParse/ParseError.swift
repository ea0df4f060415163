/// Why an explain xkcd page could not be turned into an ``ExplainedPage``.
///
/// Messages are short and lowercase so a command-line tool can print them after "error: ".
public enum ParseError: Error, Equatable, CustomStringConvertible {
    /// The input had no bytes (or only whitespace).
    case emptyInput
    /// The input is larger than libxml2 accepts in one call (2 GiB).
    case inputTooLarge(byteCount: Int)
    /// libxml2 could not build a document from the input at all.
    case unreadableHTML
    /// The HTML has no `div.mw-parser-output`, so it is not a rendered wiki page.
    case noWikiContent
    /// libxml2, opened for the first page, is not installed (or lacks a function).
    case libraryMissing(reason: String)

    public var description: String {
        switch self {
        case .emptyInput:
            "the page is empty"
        case .inputTooLarge(let byteCount):
            "the page is too large to parse (\(byteCount) bytes)"
        case .unreadableHTML:
            "the page could not be read as html"
        case .noWikiContent:
            "the page has no wiki content (no mw-parser-output)"
        case .libraryMissing(let reason):
            "reading explanations needs libxml2 (Debian's libxml2, which `make deps` installs): \(reason)"
        }
    }
}
