import Testing
import XKCDModel

/// The plain values every module shares: dates as xkcd writes them, a comic's addresses, values
/// quoted for a message.
@Suite struct ModelTests {
    @Test(arguments: [
        ("2007-10-10", ComicDate?.some(ComicDate(year: 2007, month: 10, day: 10))),
        ("2010-3-5", ComicDate(year: 2010, month: 3, day: 5)),
        ("2010-03", nil), ("2010--03-05", nil), ("-2010-03-05", nil), ("2010-03-05-01", nil), ("", nil),
        ("twenty", nil), ("2010-0x-05", nil),
    ])
    func datesAreReadAsXKCDWritesThem(_ text: String, _ expected: ComicDate?) {
        #expect(ComicDate(iso: text) == expected)
    }

    @Test func datesOrderAndPrintAsDays() {
        let earlier = ComicDate(year: 2007, month: 10, day: 10)
        let later = ComicDate(year: 2007, month: 11, day: 2)
        #expect(earlier < later)
        #expect(later.description == "2007-11-02")
    }

    @Test func aComicsAddresses() {
        #expect(Comic.url(for: 327) == "https://xkcd.com/327/")
        #expect(Comic.explainURL(for: 327) == "https://www.explainxkcd.com/wiki/index.php/327")
    }

    @Test(arguments: [
        ("plain", "'plain'"), ("a\u{1B}]0;pwned\u{7}", "'a\\u{1b}]0;pwned\\u{7}'"), ("two\nlines", "'two\\nlines'"),
        ("\u{202E}evil", "'\\u{202e}evil'"),
    ])
    func valuesAreQuotedWithTheirControlsWritten(_ text: String, _ expected: String) {
        #expect(quoted(text) == expected)
    }

    @Test func aLongValueIsCut() {
        let quotedValue = quoted(String(repeating: "x", count: 100), limit: 5)
        #expect(quotedValue == "'xxxxx…'")
    }

    @Test func fnv1aIsTheKnownHash() {
        // The FNV-1a test vectors: the empty string and "a".
        #expect(FNV1a.digest(of: []) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.digest(of: Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
    }
}
