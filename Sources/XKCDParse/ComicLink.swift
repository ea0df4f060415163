import CLibXML2

/// Links from an explain xkcd page to another comic's page.
///
/// A comic's wiki page is named "N: Title", and "N" redirects to it; MediaWiki writes a link to
/// either as `/wiki/index.php/327:_Exploits_of_a_Mom`, `/wiki/index.php/327`, or for a page
/// that does not exist `/wiki/index.php?title=327:_…&action=edit&redlink=1`, also after
/// `https://www.explainxkcd.com`. Links to categories, files, other pages and other sites
/// (xkcd.com itself included) name no comic.
enum ComicLink {
    /// The comic the `a` element `node` links to, or nil.
    static func comic(linkedBy node: xmlNodePtr) -> Int? {
        var attribute = node.pointee.properties
        while let current = attribute {
            if let name = current.pointee.name, LibXML.equals(name, "href"),
                let value = current.pointee.children?.pointee.content
            {
                return comic(inHref: UnsafePointer(value))
            }
            attribute = current.pointee.next
        }
        return nil
    }

    private static let prefixes: [StaticString] = [
        "/wiki/index.php/", "/wiki/index.php?title=", "https://www.explainxkcd.com/wiki/index.php/",
        "https://www.explainxkcd.com/wiki/index.php?title=", "//www.explainxkcd.com/wiki/index.php/",
        "http://www.explainxkcd.com/wiki/index.php/", "https://explainxkcd.com/wiki/index.php/",
    ]

    /// The comic a link's NUL-terminated `href` goes to: a page name of digits alone or followed
    /// by `:` (or `%3A`), then nothing, `#…` or `&…`.
    static func comic(inHref href: UnsafePointer<xmlChar>) -> Int? {
        for prefix in prefixes {
            let count = prefix.utf8CodeUnitCount
            var matches = true
            for i in 0..<count where href[i] != prefix.utf8Start[i] {
                matches = false
                break
            }
            guard matches else { continue }
            var index = count
            var number = 0
            while (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(href[index]) {
                number = number * 10 + Int(href[index] - UInt8(ascii: "0"))
                index += 1
                if index - count > 6 { return nil }
            }
            guard index > count, number > 0 else { return nil }
            switch href[index] {
            case 0, UInt8(ascii: ":"), UInt8(ascii: "#"), UInt8(ascii: "&"): return number
            case UInt8(ascii: "%"):
                let isColon = href[index + 1] == UInt8(ascii: "3") && (href[index + 2] | 0x20) == UInt8(ascii: "a")
                return isColon ? number : nil
            default: return nil
            }
        }
        return nil
    }
}
