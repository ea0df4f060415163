import Testing
import XKCDParse

struct HTMLTextTests {
    @Test func decodesNamedEntityFromXKCDTitle() throws {
        // Comic 259's title in xkcd's JSON.
        #expect(try HTMLText.decodingEntities("Clich&eacute;d Exchanges") == "Clichéd Exchanges")
    }

    @Test(arguments: [
        ("&#233;", "é"), ("&#xE9;", "é"), ("&#x2014;", "—"), ("&#X2014;", "—"), ("&#8212;", "—"),
        ("&#128512;", "😀"), ("a&amp;b", "a&b"), ("&quot;hi&quot;", "\"hi\""), ("&lt;3 &gt;", "<3 >"),
        ("&apos;", "'"), ("R&amp;D &amp;amp;", "R&D &amp;"),
    ])
    func decodesReferences(input: String, expected: String) throws {
        #expect(try HTMLText.decodingEntities(input) == expected)
    }

    @Test(arguments: [
        "&bogus;", "AT&T", "a & b", "&amp", "&#;", "&#x;", "&#xD800;", "&#1114112;", "&#0;", "&;", "&#12a;",
        "fish&chips;",
    ])
    func keepsInvalidReferencesAsWritten(input: String) throws {
        #expect(try HTMLText.decodingEntities(input) == input)
    }

    @Test func textWithoutAmpersandIsUnchanged() throws {
        let text = "Exploits of a Mom — Robert'); DROP TABLE Students;--"
        #expect(try HTMLText.decodingEntities(text) == text)
        #expect(try HTMLText.decodingEntities("") == "")
    }
}

@Suite struct HTMLTitleTests {
    @Test func markupInATitleIsDroppedAndEntitiesDecoded() throws {
        #expect(
            try HTMLText.plainText("<span style=\"color: #0000ED\">House</span> of Pancakes") == "House of Pancakes")
        #expect(try HTMLText.plainText("Clich&eacute;d <b>Exchanges</b>") == "Clichéd Exchanges")
        #expect(try HTMLText.plainText("a < b and c > d") == "a < b and c > d")
        #expect(try HTMLText.plainText("Exploits of a Mom") == "Exploits of a Mom")
    }
}
