import Foundation
import Testing
import XKCDModel
import XKCDParse
import _XKCDTestSupport

/// Behaviour on real explain xkcd pages (see `Fixtures/corpus/SOURCES.md`).
struct ExplainPageParserTests {
    let parser = ExplainPageParser()

    func page(_ id: Int) throws -> ExplainedPage {
        try parser.parse(html: Fixtures.explainHTML(id))
    }

    /// Text that must never leak into any field: chrome, the comic box and the discussion.
    func expectNoChrome(_ page: ExplainedPage, sourceLocation: SourceLocation = #_sourceLocation) {
        for field in [page.explanation, page.transcript, page.trivia] {
            for leak in ["add a comment", "refresh comments", "[edit]", "edit]", "NewPP limit report", "|<", "< Prev"] {
                #expect(!field.contains(leak), "found \(leak.debugDescription)", sourceLocation: sourceLocation)
            }
            #expect(!field.contains("\u{A0}"), sourceLocation: sourceLocation)
            #expect(!field.contains("\n\n\n"), sourceLocation: sourceLocation)
            #expect(field == field.trimmingCharacters(in: .whitespacesAndNewlines), sourceLocation: sourceLocation)
        }
    }

    @Test func exploitsOfAMomHasAllThreeSections() throws {
        let page = try page(327)
        #expect(page.explanation.contains("Little Bobby Tables"))
        #expect(page.explanation.contains("SQL injection"))
        #expect(page.explanation.hasPrefix("Mrs. Roberts receives a call from her son's school."))
        #expect(page.transcript.contains("Robert'); DROP TABLE Students;--"))
        #expect(
            page.transcript.hasPrefix("[Mrs. Roberts receives a call")
                && page.transcript.contains(
                    "a zigzag line.]\nVoice over the phone: Hi, This is your son's school. We're having some computer trouble.\n\n"
                ))
        #expect(page.trivia.hasPrefix("- This comic has become rather famous"))
        #expect(page.trivia.contains("\n- This is the first xkcd comic featuring Mrs. Roberts"))
        // The comic box ("Title text: …") and the navigation are dropped, the explanation's prose is kept.
        #expect(!page.explanation.contains("Title text: Her daughter"))
        #expect(page.explanation.contains("The title text references that Mrs. Roberts' daughter"))
        // The transcript doesn't bleed into the other sections, or the reverse.
        #expect(!page.explanation.contains("Voice over the phone"))
        #expect(!page.transcript.contains("bobby-tables.com"))
        #expect(page.categories.isEmpty)
        #expect(!page.isIncomplete)
        expectNoChrome(page)
    }

    @Test func eggsplanationHeadingIsTheExplanation() throws {
        let page = try page(2408)
        #expect(page.explanation.hasPrefix("This comic shows nine egg cartons"))
        // Its alignment table: one line per row, cells joined.
        #expect(page.explanation.contains("\nLawful Good | A character who believes in altruism"))
        #expect(!page.explanation.contains("Eggsplanation"))
        #expect(page.transcript.hasPrefix("[3x3 grid of egg cartons"))
        #expect(page.transcript.contains("Top Left - Lawful Good"))
        expectNoChrome(page)
    }

    @Test func pageWithoutExplanationHeadingUsesTheLead() throws {
        let page = try page(3042)
        #expect(page.explanation.hasPrefix("The small and commonly supposed useless forelimbs of Tyrannosaurus rex"))
        #expect(!page.explanation.contains("Title text:"))
        #expect(!page.explanation.contains("If T. rex hadn't gone extinct"))
        #expect(page.transcript.hasPrefix("[A graph is shown."))
        #expect(page.transcript.hasSuffix("If T. rex hadn't gone extinct\n(Linear extrapolation)"))
        expectNoChrome(page)
    }

    @Test(arguments: [1116, 1608])
    func pageWithoutTranscriptHasEmptyTranscript(id: Int) throws {
        let page = try page(id)
        #expect(page.transcript.isEmpty)
        #expect(page.explanation.count > 2_000)
        expectNoChrome(page)
    }

    @Test func unknownSectionsFoldIntoTheExplanationWithTheirTitles() throws {
        let page = try page(1116)
        #expect(page.explanation.contains("\n\nFrame-by-frame breakdown\n\n"))
        #expect(page.explanation.contains("\n\nCloseups on the Lights\n\n"))
        let hoverboard = try self.page(1608)
        #expect(hoverboard.explanation.contains("\n\nTechnical aspects\n\n"))
        #expect(
            hoverboard.trivia.hasPrefix(
                "This is an interactive comic made to celebrate the release of Randall's new book"))
    }

    @Test func subsectionsStayInTheirSection() throws {
        let page = try page(802)
        // h3 regions of the map are part of the explanation, titles kept as paragraphs.
        #expect(page.explanation.contains("\n\nFacebook Region\n\nThe Facebook region deals with social networks"))
        #expect(page.explanation.contains("\n\nForums Islands\n\n"))
        #expect(page.transcript.hasPrefix("Map of Online Communities"))
        #expect(!page.explanation.contains("Map of Online Communities\nSize on map represents"))
        #expect(page.trivia == "This comic used to be available as a poster in the xkcd store before it was shut down.")
        expectNoChrome(page)
    }

    /// 1335 leaves a `<div class="plainlinks">` open around its image table, so libxml2 nests the
    /// Transcript and Trivia headings inside that div; they must still switch sections there.
    @Test func headingsNestedInsideAnUnclosedBlockStillSwitchSections() throws {
        let page = try page(1335)
        #expect(page.explanation.hasPrefix("The image above is accelerated to show a full day's spin"))
        #expect(page.explanation.contains("\nLinks to each individual comic image\n00h | 01h | 02h"))
        #expect(page.explanation.contains("\n00h00m 00h15m 00h30m 00h45m | 01h00m"))
        #expect(!page.explanation.contains("[The comic is a moving circle"))
        #expect(page.transcript.hasPrefix("[The comic is a moving circle with a static outer ring.]"))
        #expect(page.transcript.contains("Coastal Brazil"))
        #expect(!page.transcript.contains("When first posted, the picture was exactly 12 hours off"))
        #expect(page.trivia.hasPrefix("- When first posted, the picture was exactly 12 hours off."))
        expectNoChrome(page)
    }

    @Test func realLiveFullPageFrom2019() throws {
        let page = try parser.parse(html: Fixtures.wikiPage("2207.html"))
        #expect(page.explanation.hasPrefix("White Hat is observing a physicist, Cueball, who is staring at some"))
        #expect(
            page.explanation.hasSuffix(
                "including by a paper cited by the first black hole image astronomers for example."))
        #expect(!page.explanation.contains("This explanation may be incomplete"))
        #expect(page.transcript.hasPrefix("[White Hat is watching Cueball from a couple of meters away."))
        #expect(
            page.transcript.hasSuffix(
                "Cueball (thinking): Think. There's gotta be a way to avoid doing all that work..."))
        #expect(page.trivia.isEmpty)
        // The discussion (a talk page transcluded below the article) is not part of the page.
        #expect(!page.transcript.contains("Normie"))
        #expect(!page.explanation.contains("Baldrickk"))
        #expect(page.isIncomplete)
        #expect(
            page.categories == [
                "All comics", "Comics from 2019", "Comics from September", "Wednesday comics",
                "Incomplete explanations",
                "Comics featuring White Hat", "Comics featuring Cueball", "Physics", "Math",
            ])
        expectNoChrome(page)
    }

    @Test func fullPageAndAPIFragmentGiveTheSameText() throws {
        let full = try parser.parse(html: Fixtures.wikiPage("2207.mw139.html"))
        let fragment = try page(2207)
        #expect(full.explanation == fragment.explanation)
        #expect(full.transcript == fragment.transcript)
        #expect(full.trivia == fragment.trivia)
        #expect(fragment.categories.isEmpty)
        #expect(full.categories.contains("Comics featuring White Hat"))
        // The 2019 revision differs only by later edits: the same opening, and a subsection added since.
        let live = try parser.parse(html: Fixtures.wikiPage("2207.html"))
        #expect(full.explanation.prefix(60) == live.explanation.prefix(60))
        #expect(full.explanation.contains("\n\nExamples of bivariate optimization\n\n"))
        #expect(!live.explanation.contains("Examples of bivariate optimization"))
    }

    @Test func fullPageCategoriesAndData() throws {
        let html = try Fixtures.wikiPage("1116.html")
        let page = try parser.parse(htmlData: Data(html.utf8))
        #expect(page == (try parser.parse(html: html)))
        #expect(page.categories.contains("All comics"))
        #expect(page.transcript.isEmpty)
        #expect(page.explanation == (try self.page(1116)).explanation)
    }

    @Test func incompleteNoticeSetsTheFlagAndIsDropped() throws {
        let garden = try page(1663)
        #expect(garden.isIncomplete)
        let newest = try page(3174)
        #expect(newest.isIncomplete)
        for page in [garden, newest] {
            #expect(!page.explanation.contains("This explanation may be incomplete"))
            #expect(!page.transcript.contains("This transcript is incomplete"))
            #expect(!page.explanation.contains("please edit the page"))
        }
        #expect(!(try page(327)).isIncomplete)
        #expect(!(try page(1608)).isIncomplete)  // its {{notice}} box is not an incomplete notice
    }

    @Test func citationNeededAndReferenceMarkersAreDropped() throws {
        // 402 writes [citation needed] by hand as a plain <sup>, like explainxkcd's own template.
        for id in Fixtures.explainedIDs {
            let page = try page(id)
            #expect(!page.explanation.contains("[citation needed]"), "comic \(id)")
            #expect(!page.explanation.contains("↑"), "comic \(id)")
        }
    }

    @Test func everyFixturePageParsesCleanly() throws {
        for id in Fixtures.explainedIDs {
            let page = try page(id)
            #expect(!page.explanation.isEmpty, "comic \(id)")
            #expect(page.transcript.isEmpty == [1116, 1608].contains(id), "comic \(id)")
            expectNoChrome(page)
        }
    }
}

/// Input that is not a wiki page.
struct ParseErrorTests {
    @Test(arguments: ["", "   \n\t "])
    func emptyInputIsAnError(html: String) {
        #expect(throws: ParseError.emptyInput) { try ExplainPageParser().parse(html: html) }
        #expect(throws: ParseError.emptyInput) { try ExplainPageParser().parse(htmlData: Data(html.utf8)) }
    }

    @Test(arguments: [
        "not html at all",
        "<html><body><p>Hello <b>world</p></div></table>",
        "\u{0}\u{1}\u{FF}garbage<<<>>>&&&;;",
        "{\"parse\":{\"text\":\"\"}}",
    ])
    func htmlWithoutWikiContentIsAnError(html: String) {
        #expect(throws: ParseError.noWikiContent) { try ExplainPageParser().parse(html: html) }
    }

    @Test func invalidUTF8DoesNotCrash() throws {
        let bytes: [UInt8] =
            Array("<div class=\"mw-parser-output\"><p>caf".utf8) + [0xE9, 0xFF, 0xC3] + Array("</p>".utf8)
        let page = try ExplainPageParser().parse(htmlData: Data(bytes))
        #expect(page.explanation.hasPrefix("caf"))
        #expect(page.transcript.isEmpty)
    }

    @Test func messagesAreShortAndLowercase() {
        #expect(ParseError.noWikiContent.description == "the page has no wiki content (no mw-parser-output)")
        #expect(ParseError.emptyInput.description == "the page is empty")
    }
}
