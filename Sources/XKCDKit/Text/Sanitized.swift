import FoundationEssentials

/// Removes control characters that the data may hold, so that nothing from the index can move
/// the cursor or change the terminal's state: C0 and C1 controls and DEL, and the bidi
/// marks, overrides and isolates (#1137 "RTL"). Tab, line feed and carriage return become spaces,
/// line feeds stay when asked.
///
/// Byte by byte: every snippet holds an ellipsis, whose lead byte 0xE2 the bidi controls share,
/// and decoding every character to look at it made each search noticeably slower.
///
/// - Parameters:
///   - text: text from the index or the network, about to be shown.
///   - keepingNewlines: keep line feeds, for text shown over several lines.
/// - Returns: `text` without those characters; `text` itself when it holds none.
public func sanitized(_ text: String, keepingNewlines: Bool = false) -> String {
    var text = text
    return text.withUTF8 { bytes -> String? in
        var out: [UInt8]?
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var length = 0  // of a sequence to drop or replace
            var replacement: UInt8?
            switch byte {
            case 0x0A where keepingNewlines: break
            case 0x09, 0x0A, 0x0D: (length, replacement) = (1, 0x20)
            default: length = controlLength(in: bytes, at: index)
            }
            if length > 0, out == nil {
                var copy: [UInt8] = []
                copy.reserveCapacity(bytes.count)
                copy += bytes[..<index]
                out = copy
            }
            if length == 0 {
                out?.append(byte)
                index += 1
            } else {
                if let replacement { out?.append(replacement) }
                index += length
            }
        }
        return out.map { String(decoding: $0, as: UTF8.self) }
    } ?? text
}

/// The length in bytes of the character at `index` of UTF-8 `bytes` if it is one that could
/// change a terminal's state or the direction of the text around it, else 0: C0 controls and
/// DEL (1), C1 controls U+0080-U+009F and the Arabic letter mark U+061C (2), the bidi marks
/// U+200E-U+200F, overrides and isolates U+202A-U+202E and U+2066-U+2069 (3).
func controlLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
    switch bytes[index] {
    case 0x00..<0x20, 0x7F: return 1
    case 0xC2 where index + 1 < bytes.count && (0x80..<0xA0).contains(bytes[index + 1]): return 2
    case 0xD8 where index + 1 < bytes.count && bytes[index + 1] == 0x9C: return 2
    case 0xE2
    where index + 2 < bytes.count
        && ((bytes[index + 1] == 0x80
            && ((0xAA...0xAE).contains(bytes[index + 2]) || (0x8E...0x8F).contains(bytes[index + 2])))
            || (bytes[index + 1] == 0x81 && (0xA6...0xA9).contains(bytes[index + 2]))):
        return 3
    default: return 0
    }
}

/// The marks around the words a snippet highlights (``SearchEngine/highlightMarks``), read byte by
/// byte: Foundation's `replacingOccurrences` made a search process a quarter slower.
public enum HighlightMark: Sendable {
    /// The mark before a highlighted word, and the one after it.
    case open, close

    private static let openMark = Array(SearchEngine.highlightMarks.open.utf8)
    private static let closeMark = Array(SearchEngine.highlightMarks.close.utf8)
    private static let firstBytes = (open: openMark[0], close: closeMark[0])

    /// The mark's length in bytes.
    public var count: Int { self == .open ? Self.openMark.count : Self.closeMark.count }

    /// The highlight mark that starts at `index`, if one does.
    ///
    /// - Parameters:
    ///   - index: a byte offset in `bytes`.
    ///   - bytes: a snippet's UTF-8.
    /// - Returns: the mark, or nil when none starts there.
    public static func at(_ index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> HighlightMark? {
        // Most bytes start neither mark: one comparison each before the marks are read.
        let byte = bytes[index]
        guard byte == firstBytes.open || byte == firstBytes.close else { return nil }
        func matches(_ mark: [UInt8]) -> Bool {
            guard index + mark.count <= bytes.count else { return false }
            for offset in mark.indices where bytes[index + offset] != mark[offset] { return false }
            return true
        }
        return matches(openMark) ? .open : matches(closeMark) ? .close : nil
    }

    /// `marked` with its highlight marks turned into `open` and `close` (or removed, given "").
    ///
    /// - Parameters:
    ///   - marked: a snippet with ``SearchEngine/highlightMarks`` in it.
    ///   - open: what starts a highlighted word, such as `<mark>` or a terminal's bold.
    ///   - close: what ends it.
    /// - Returns: the snippet with the front end's own highlighting.
    public static func replacing(in marked: String, open: String, close: String) -> String {
        let start = Array(open.utf8)
        let end = Array(close.utf8)
        var out: [UInt8] = []
        var marked = marked
        marked.withUTF8 { bytes in
            out.reserveCapacity(bytes.count + 16)
            var index = 0
            while index < bytes.count {
                if let mark = at(index, in: bytes) {
                    out += mark == .open ? start : end
                    index += mark.count
                } else {
                    out.append(bytes[index])
                    index += 1
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
