import CLibXML2

/// Plain text built from HTML text nodes: whitespace runs become one space, and line, paragraph
/// and cell breaks are only written when more text follows, so the result never starts or ends
/// with blank lines or spaces.
struct TextBuffer {
    private(set) var bytes: [UInt8] = []
    private var pendingBreak = Break.none
    private var hasPendingSpace = false
    private var hasPendingSeparator = false
    private var pendingMarker: ListMarker?

    enum Break: UInt8, Comparable {
        case none, line, paragraph
        static func < (lhs: Break, rhs: Break) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A list item's prefix: "- " for bullets, "3. " for numbered items, indented two spaces per
    /// nesting level below the first.
    struct ListMarker {
        var depth: Int
        var number: Int?
    }

    var isEmpty: Bool { bytes.isEmpty }

    mutating func requestBreak(_ level: Break) {
        if pendingBreak < level { pendingBreak = level }
    }

    /// Asks for at least a space before the next text (a break inside a table cell).
    mutating func requestSpace() {
        hasPendingSpace = true
    }

    /// Separates table cells with " | " (unless a line break comes first).
    mutating func requestCellSeparator() {
        hasPendingSeparator = true
    }

    mutating func requestMarker(_ marker: ListMarker) {
        pendingMarker = marker
    }

    /// Appends a NUL-terminated UTF-8 text node. U+00A0 counts as a space; inside `pre`, newlines
    /// become line breaks.
    ///
    /// Runs of words separated by single ASCII spaces (most of a text node) are copied in one go.
    mutating func append(text: UnsafePointer<UInt8>, isPreformatted: Bool = false) {
        var i = 0
        while true {
            let byte = text[i]
            if byte == 0 { return }
            if isHTMLSpace(byte) {
                if isPreformatted, byte == 0x0A { requestBreak(.line) } else { hasPendingSpace = true }
                i += 1
                continue
            }
            if byte == 0xC2, text[i + 1] == 0xA0 {
                hasPendingSpace = true
                i += 2
                continue
            }
            // A run: non-space bytes, possibly with single spaces between them.
            var end = i + 1
            while true {
                let next = text[end]
                if next == 0 { break }
                if next == 0x20 {
                    let after = text[end + 1]
                    if after == 0 || isHTMLSpace(after) || after == 0xC2 { break }
                    end += 2
                    continue
                }
                if isHTMLSpace(next) || next == 0xC2 && text[end + 1] == 0xA0 { break }
                end += 1
            }
            flushPending()
            bytes.append(contentsOf: UnsafeBufferPointer(start: text + i, count: end - i))
            i = end
        }
    }

    /// Appends already-clean text (a heading's title) as its own run.
    mutating func append(_ other: TextBuffer) {
        guard !other.isEmpty else { return }
        flushPending()
        bytes.append(contentsOf: other.bytes)
    }

    /// Appends all text below `root`, ignoring structure, edit links and reference markers.
    mutating func appendText(of root: xmlNodePtr) {
        var next = root.pointee.children
        while let node = next {
            switch node.pointee.type {
            case XML_ELEMENT_NODE:
                if !Self.isIgnoredForText(node), let child = node.pointee.children {
                    next = child
                    continue
                }
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = node.pointee.content { append(text: content) }
            default:
                break
            }
            next = LibXML.nextNode(after: node, under: root) { _ in }
        }
    }

    private static func isIgnoredForText(_ node: xmlNodePtr) -> Bool {
        switch LibXML.tag(of: node) {
        case .script, .style: return true
        default: break
        }
        guard node.pointee.properties != nil else { return false }
        let attributes = LibXML.ElementAttributes(node)
        return attributes.hasClass("mw-editsection") || attributes.hasClass("reference")
    }

    /// True when the text contains `word` (lowercase ASCII), ignoring ASCII case.
    func contains(caseInsensitive word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        let needle = word.utf8Start
        guard bytes.count >= count else { return false }
        outer: for start in 0...(bytes.count - count) {
            for i in 0..<count where bytes[start + i] | 0x20 != needle[i] { continue outer }
            return true
        }
        return false
    }

    /// The text lowercased (ASCII only), for comparing heading titles.
    var lowercasedASCII: [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    func makeString() -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private mutating func flushPending() {
        if !bytes.isEmpty {
            switch pendingBreak {
            case .paragraph: bytes.append(contentsOf: [0x0A, 0x0A])
            case .line: bytes.append(0x0A)
            case .none:
                if hasPendingSeparator {
                    bytes.append(contentsOf: [0x20, 0x7C, 0x20])  // " | "
                } else if hasPendingSpace {
                    bytes.append(0x20)
                }
            }
        }
        if let marker = pendingMarker {
            for _ in 1..<max(marker.depth, 1) { bytes.append(contentsOf: [0x20, 0x20]) }
            if let number = marker.number {
                bytes.append(contentsOf: String(number).utf8)
                bytes.append(contentsOf: [0x2E, 0x20])  // ". "
            } else {
                bytes.append(contentsOf: [0x2D, 0x20])  // "- "
            }
            pendingMarker = nil
        }
        pendingBreak = .none
        hasPendingSpace = false
        hasPendingSeparator = false
    }
}
