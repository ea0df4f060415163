import CLibXML2

/// Small helpers over libxml2's tree. Every pointer here lives only as long as its document,
/// which the caller frees before returning; nothing in this file stores one.
enum LibXML {
    /// libxml2 opened (Sources/CLibXML2) and initialised, once per process; the reason when it
    /// could not be opened.
    private static let initialization: String? = {
        var reason = [CChar](repeating: 0, count: 160)
        guard xkcd_libxml2_load(&reason, reason.count) != 0 else {
            return String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        xmlInitParser()
        return nil
    }()

    /// Opens libxml2 and calls `xmlInitParser()`, once per process, so that documents can be
    /// parsed from several tasks at the same time. `xmlCleanupParser()` is never called.
    static func initializeOnce() throws(ParseError) {
        if let reason = initialization { throw .libraryMissing(reason: reason) }
    }

    /// The element names the extractor treats specially; everything else is ``Tag/other``
    /// (an inline element whose text is kept).
    enum Tag: UInt8 {
        case other
        case a, b, br, caption, code, dd, div, dl, dt, h1, h2, h3, h4, h5, h6, img, li, noscript, ol, p, pre
        case script, style, sup, table, td, th, tr, ul, blockquote, center, hr, figure, figcaption, section
        case math, svg, input, label, button, audio, video

        var headingLevel: Int? {
            switch self {
            case .h1: 1
            case .h2: 2
            case .h3: 3
            case .h4: 4
            case .h5: 5
            case .h6: 6
            default: nil
            }
        }
    }

    /// Classifies an element by its (lowercase, as the HTML parser stores it) name.
    @inline(__always)
    static func tag(of node: xmlNodePtr) -> Tag {
        guard let name = node.pointee.name else { return .other }
        return tag(named: name)
    }

    static func tag(named name: UnsafePointer<xmlChar>) -> Tag {
        let c0 = name[0]
        if c0 == 0 { return .other }
        let c1 = name[1]
        if c1 == 0 {
            switch c0 {
            case UInt8(ascii: "a"): return .a
            case UInt8(ascii: "b"): return .b
            case UInt8(ascii: "p"): return .p
            default: return .other
            }
        }
        let c2 = name[2]
        if c2 == 0 {
            switch (c0, c1) {
            case (UInt8(ascii: "b"), UInt8(ascii: "r")): return .br
            case (UInt8(ascii: "d"), UInt8(ascii: "d")): return .dd
            case (UInt8(ascii: "d"), UInt8(ascii: "l")): return .dl
            case (UInt8(ascii: "d"), UInt8(ascii: "t")): return .dt
            case (UInt8(ascii: "h"), UInt8(ascii: "1")): return .h1
            case (UInt8(ascii: "h"), UInt8(ascii: "2")): return .h2
            case (UInt8(ascii: "h"), UInt8(ascii: "3")): return .h3
            case (UInt8(ascii: "h"), UInt8(ascii: "4")): return .h4
            case (UInt8(ascii: "h"), UInt8(ascii: "5")): return .h5
            case (UInt8(ascii: "h"), UInt8(ascii: "6")): return .h6
            case (UInt8(ascii: "h"), UInt8(ascii: "r")): return .hr
            case (UInt8(ascii: "l"), UInt8(ascii: "i")): return .li
            case (UInt8(ascii: "o"), UInt8(ascii: "l")): return .ol
            case (UInt8(ascii: "t"), UInt8(ascii: "d")): return .td
            case (UInt8(ascii: "t"), UInt8(ascii: "h")): return .th
            case (UInt8(ascii: "t"), UInt8(ascii: "r")): return .tr
            case (UInt8(ascii: "u"), UInt8(ascii: "l")): return .ul
            default: return .other
            }
        }
        // Longer names are rarer; compare them whole.
        switch c0 {
        case UInt8(ascii: "a"): if equals(name, "audio") { return .audio }
        case UInt8(ascii: "b"):
            if equals(name, "blockquote") { return .blockquote }
            if equals(name, "button") { return .button }
        case UInt8(ascii: "c"):
            if equals(name, "code") { return .code }
            if equals(name, "caption") { return .caption }
            if equals(name, "center") { return .center }
        case UInt8(ascii: "d"): if equals(name, "div") { return .div }
        case UInt8(ascii: "f"):
            if equals(name, "figure") { return .figure }
            if equals(name, "figcaption") { return .figcaption }
        case UInt8(ascii: "i"):
            if equals(name, "img") { return .img }
            if equals(name, "input") { return .input }
        case UInt8(ascii: "l"): if equals(name, "label") { return .label }
        case UInt8(ascii: "m"): if equals(name, "math") { return .math }
        case UInt8(ascii: "n"): if equals(name, "noscript") { return .noscript }
        case UInt8(ascii: "p"): if equals(name, "pre") { return .pre }
        case UInt8(ascii: "s"):
            if equals(name, "sup") { return .sup }
            if equals(name, "script") { return .script }
            if equals(name, "style") { return .style }
            if equals(name, "section") { return .section }
            if equals(name, "svg") { return .svg }
        case UInt8(ascii: "t"): if equals(name, "table") { return .table }
        case UInt8(ascii: "v"): if equals(name, "video") { return .video }
        default: break
        }
        return .other
    }

    /// Byte-for-byte comparison of a NUL-terminated libxml2 string with an ASCII literal.
    @inline(__always)
    static func equals(_ string: UnsafePointer<xmlChar>, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        let bytes = literal.utf8Start
        for i in 0..<count where string[i] != bytes[i] { return false }
        return string[count] == 0
    }

    /// The `id` and `class` attribute values of an element, read in place (no copies).
    struct ElementAttributes {
        var id: UnsafePointer<xmlChar>?
        var classes: UnsafePointer<xmlChar>?

        @inline(__always)
        init(_ node: xmlNodePtr) {
            var attribute = node.pointee.properties
            while let current = attribute {
                if let name = current.pointee.name, let value = current.pointee.children?.pointee.content {
                    if name[0] == UInt8(ascii: "i"), name[1] == UInt8(ascii: "d"), name[2] == 0 {
                        id = UnsafePointer(value)
                    } else if LibXML.equals(name, "class") {
                        classes = UnsafePointer(value)
                    }
                }
                attribute = current.pointee.next
            }
        }

        func idEquals(_ literal: StaticString) -> Bool {
            guard let id else { return false }
            return LibXML.equals(id, literal)
        }

        /// True when the space-separated `class` list contains `token`.
        func hasClass(_ token: StaticString) -> Bool {
            guard let classes else { return false }
            return LibXML.classList(classes, contains: token)
        }
    }

    static func classList(_ list: UnsafePointer<xmlChar>, contains token: StaticString) -> Bool {
        let count = token.utf8CodeUnitCount
        let bytes = token.utf8Start
        var start = 0
        while true {
            while list[start] != 0, isHTMLSpace(list[start]) { start += 1 }
            if list[start] == 0 { return false }
            var end = start
            while list[end] != 0, !isHTMLSpace(list[end]) { end += 1 }
            if end - start == count {
                var same = true
                for i in 0..<count where list[start + i] != bytes[i] {
                    same = false
                    break
                }
                if same { return true }
            }
            start = end
        }
    }

    /// Walks the elements below `root` in document order without recursion (so deeply nested
    /// garbage can't exhaust the stack). `visit(node, true)` on the way in returns whether to
    /// enter the element's children; `visit(node, false)` is called on the way out of elements
    /// that were entered.
    static func walkElements(under root: xmlNodePtr, _ visit: (xmlNodePtr, Bool) -> Bool) {
        var next = root.pointee.children
        while let node = next {
            var entered = false
            if node.pointee.type == XML_ELEMENT_NODE {
                entered = visit(node, true)
                if entered, let child = node.pointee.children {
                    next = child
                    continue
                }
                if entered { _ = visit(node, false) }
            }
            next = nextNode(after: node, under: root) { _ = visit($0, false) }
        }
    }

    /// The next node in document order after `node`'s subtree, calling `leave` for each ancestor
    /// closed on the way; nil at the end of `root`.
    @inline(__always)
    static func nextNode(after node: xmlNodePtr, under root: xmlNodePtr, leave: (xmlNodePtr) -> Void) -> xmlNodePtr? {
        var current = node
        while true {
            if let sibling = current.pointee.next { return sibling }
            guard let parent = current.pointee.parent, parent != root else { return nil }
            leave(parent)
            current = parent
        }
    }
}
