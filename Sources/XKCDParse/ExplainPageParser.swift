import CLibXML2
import FoundationEssentials
import XKCDModel

/// Extracts the Explanation, Transcript and Trivia of an explain xkcd page with libxml2's HTML parser.
///
/// The parser is a value with no state: one instance can be shared by many tasks, and each call
/// parses into its own libxml2 document, freed before the call returns.
///
/// ```swift
/// let page = try ExplainPageParser().parse(html: response.parse.text)
/// print(page.transcript)   // "[Mrs. Roberts receives a call …]\nVoice over the phone: Hi, …"
/// ```
///
/// What is kept: the text of the sections, with paragraphs separated by a blank line, list items
/// on their own lines ("- item", "1. item"), transcript `dd` lines one per line, and table rows one
/// per line with cells joined by " | "; and the comics the sections link to
/// (``ExplainedPage/linkedComics``). What is dropped: the comic's own box at the top, edit links,
/// notice boxes (their "incomplete" wording sets ``ExplainedPage/isIncomplete``), reference and
/// citation-needed markers, navigation boxes, the table of contents, scripts, styles, comments,
/// images, and everything from the Discussion on.
public struct ExplainPageParser: Sendable {
    public init() {}

    /// Opens libxml2 (Sources/CLibXML2), which parsing does on first use anyway: an index run
    /// calls it first, to stop with one line when the library is missing rather than fail every
    /// page.
    public static func loadLibrary() throws(ParseError) {
        try LibXML.initializeOnce()
    }

    /// Parses an API `parse.text` fragment (`<div class="mw-parser-output">…`) or a full wiki page.
    ///
    /// - Throws: ``ParseError/emptyInput`` for empty input, ``ParseError/noWikiContent`` when the
    ///   HTML has no `div.mw-parser-output`. A page without the usual sections is not an error: the
    ///   missing parts are empty strings.
    public func parse(html: String) throws(ParseError) -> ExplainedPage {
        var html = html
        // `withUTF8` hands out a native string's own storage, so there is no copy.
        let result = html.withUTF8 { Self.parse(bytes: UnsafeRawBufferPointer($0)) }
        return try result.get()
    }

    /// Parses UTF-8 HTML bytes; see ``parse(html:)``.
    public func parse(htmlData: Data) throws(ParseError) -> ExplainedPage {
        try htmlData.withUnsafeBytes { Self.parse(bytes: $0) }.get()
    }

    private static let parserOptions = Int32(
        bitPattern: HTML_PARSE_NONET.rawValue | HTML_PARSE_RECOVER.rawValue
            | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue)

    private static func parse(bytes: UnsafeRawBufferPointer) -> Result<ExplainedPage, ParseError> {
        guard let base = bytes.baseAddress, bytes.contains(where: { !isHTMLSpace($0) }) else {
            return .failure(.emptyInput)
        }
        guard bytes.count <= Int(Int32.max) else { return .failure(.inputTooLarge(byteCount: bytes.count)) }
        do { try LibXML.initializeOnce() } catch { return .failure(error) }
        guard
            let doc = htmlReadMemory(
                base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, "UTF-8", parserOptions)
        else {
            return .failure(.unreadableHTML)
        }
        defer { xmlFreeDoc(doc) }
        let landmarks = Landmarks.find(in: doc)
        guard let content = landmarks.content else { return .failure(.noWikiContent) }
        var extractor = SectionExtractor()
        extractor.extract(from: content)
        var categories: [String] = []
        if let catlinks = landmarks.categoryLinks {
            categories = Landmarks.categoryNames(in: catlinks)
        }
        let flaggedByCategory = categories.contains {
            $0 == "Incomplete explanations" || $0 == "Incomplete transcripts"
        }
        return .success(
            ExplainedPage(
                explanation: extractor.explanation.makeString(),
                transcript: extractor.transcript.makeString(),
                trivia: extractor.trivia.makeString(),
                categories: categories,
                isIncomplete: extractor.isIncomplete || flaggedByCategory,
                linkedComics: extractor.linkedComics
            ))
    }
}

/// The parts of a document the extractor starts from, found without entering the article itself.
struct Landmarks {
    var content: xmlNodePtr?
    var categoryLinks: xmlNodePtr?

    /// Finds `div.mw-parser-output` (preferring the one in `#mw-content-text`, because a full
    /// page's site notice may be wrapped in its own `mw-parser-output`) and `#mw-normal-catlinks`.
    static func find(in doc: htmlDocPtr) -> Landmarks {
        var firstOutput: xmlNodePtr?
        var outputInContentText: xmlNodePtr?
        var contentText: xmlNodePtr?
        var catlinks: xmlNodePtr?
        var insideContentText = false
        guard let root = xmlDocGetRootElement(doc) else { return Landmarks() }
        LibXML.walkElements(under: root) { node, entering in
            let attributes = LibXML.ElementAttributes(node)
            if !entering {
                if node == contentText { insideContentText = false }
                return false
            }
            if attributes.idEquals("mw-normal-catlinks") {
                catlinks = node
                return false
            }
            if attributes.idEquals("mw-content-text") {
                contentText = node
                insideContentText = true
                return true
            }
            if attributes.hasClass("mw-parser-output") {
                if firstOutput == nil { firstOutput = node }
                if insideContentText, outputInContentText == nil { outputInContentText = node }
                return false  // never walk the article here
            }
            return true
        }
        return Landmarks(content: outputInContentText ?? firstOutput, categoryLinks: catlinks)
    }

    /// The names in a `#mw-normal-catlinks` box: the text of each `li > a`.
    static func categoryNames(in catlinks: xmlNodePtr) -> [String] {
        var names: [String] = []
        LibXML.walkElements(under: catlinks) { node, entering in
            guard entering else { return false }
            guard LibXML.tag(of: node) == .li else { return true }
            var text = TextBuffer()
            text.appendText(of: node)
            if !text.isEmpty { names.append(text.makeString()) }
            return false
        }
        return names
    }
}

@inline(__always)
func isHTMLSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D || byte == 0x0C
}
