import CLibXML2

/// Helpers for HTML-flavoured plain text found outside pages, such as xkcd's JSON.
public enum HTMLText: Sendable {
    /// The text of a snippet of HTML: tags dropped, entities decoded.
    ///
    /// A few xkcd titles carry markup: comic 472's is
    /// `<span style="color: #0000ED">House</span> of Pancakes`.
    ///
    /// - Returns: ``decodingEntities(_:)`` of `text` when it has no tag, without parsing.
    /// - Throws: ``ParseError/libraryMissing(reason:)`` when libxml2 is needed and missing.
    public static func plainText(_ text: String) throws(ParseError) -> String {
        guard let open = text.utf8.firstIndex(of: UInt8(ascii: "<")),
            text.utf8[open...].contains(UInt8(ascii: ">"))
        else { return try decodingEntities(text) }
        try LibXML.initializeOnce()
        var html = Array("<html><body>\(text)</body></html>".utf8)
        let options = Int32(
            bitPattern: HTML_PARSE_NONET.rawValue | HTML_PARSE_RECOVER.rawValue
                | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue)
        let result: String? = html.withUnsafeMutableBytes { buffer in
            guard
                let doc = htmlReadMemory(
                    buffer.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(buffer.count), nil, "UTF-8", options)
            else { return nil }
            defer { xmlFreeDoc(doc) }
            guard let root = xmlDocGetRootElement(doc) else { return nil }
            var text: [UInt8] = []
            appendText(of: root, to: &text)
            return String(decoding: text, as: UTF8.self)
        }
        if let result { return result }
        return try decodingEntities(text)
    }

    /// Appends the text nodes under `node`, in document order. Titles nest a level or two.
    private static func appendText(of node: xmlNodePtr, to text: inout [UInt8]) {
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_TEXT_NODE, let content = current.pointee.content {
                text.append(contentsOf: UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
            } else {
                appendText(of: current, to: &text)
            }
            child = current.pointee.next
        }
    }

    /// Decodes HTML character references in plain text.
    ///
    /// xkcd's JSON API writes some titles and alt texts with entities: comic 259's title is
    /// `"Clich&eacute;d Exchanges"`.
    ///
    /// ```swift
    /// HTMLText.decodingEntities("Clich&eacute;d Exchanges")   // "Clichéd Exchanges"
    /// HTMLText.decodingEntities("&#8212; &#x2014; &amp;")     // "— — &"
    /// ```
    ///
    /// Named references are the HTML 4 set plus `&apos;` (libxml2's table); numeric ones are
    /// decimal `&#233;` or hexadecimal `&#xE9;`. A reference must end with `;`. Anything that is
    /// not a valid reference (an unknown name, a code point beyond U+10FFFF, a surrogate, NUL, a
    /// bare `&`) is kept as written.
    ///
    /// - Returns: The decoded text; `text` itself, without copying, when it contains no `&`.
    /// - Throws: ``ParseError/libraryMissing(reason:)`` when the text has a `&` and libxml2 (whose
    ///   table of names is used) is missing.
    public static func decodingEntities(_ text: String) throws(ParseError) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return text }
        try LibXML.initializeOnce()
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "&"), let (scalar, length) = reference(in: bytes, at: i) {
                output.append(contentsOf: String(Character(scalar)).utf8)
                i += length
            } else {
                output.append(byte)
                i += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The character of the reference starting with the `&` at `start`, and the reference's length.
    private static func reference(in bytes: [UInt8], at start: Int) -> (Unicode.Scalar, Int)? {
        let maxLength = 40
        var end = start + 1
        while end < bytes.count, end - start <= maxLength, bytes[end] != UInt8(ascii: ";") {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: ";"), end > start + 1 else { return nil }
        let body = bytes[(start + 1)..<end]
        let length = end - start + 1
        if body.first == UInt8(ascii: "#") {
            var digits = body.dropFirst()
            var radix: UInt32 = 10
            if let x = digits.first, x | 0x20 == UInt8(ascii: "x") {
                radix = 16
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty, digits.count <= 8 else { return nil }
            var value: UInt32 = 0
            for digit in digits {
                guard let d = digitValue(digit, radix: radix) else { return nil }
                value = value * radix + d
            }
            guard value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return (scalar, length)
        }
        guard body.allSatisfy({ isASCIIAlphanumeric($0) }) else { return nil }
        let name = Array(body) + [0]
        let value: UInt32? = name.withUnsafeBufferPointer { buffer in
            htmlEntityLookup(buffer.baseAddress).map { $0.pointee.value }
        }
        guard let value, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    private static func digitValue(_ byte: UInt8, radix: UInt32) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
