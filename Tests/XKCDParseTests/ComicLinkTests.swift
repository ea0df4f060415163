import Foundation
import Testing
import XKCDModel
import XKCDParse
import _XKCDTestSupport

/// The links from an explanation to other comics, on real explain xkcd HTML.
struct ComicLinkTests {
    private func page(_ id: Int) throws -> ExplainedPage {
        try ExplainPageParser().parse(html: try Fixtures.explainHTML(id))
    }

    @Test func theSectionsLinksToComicsAreKeptInOrder() throws {
        // 327's explanation links to 1253, then 10 (and to the wiki pages of characters, a
        // category and a file, which are no comics).
        let mom = try page(327).linkedComics
        #expect(mom == [1253, 10], "\(mom)")
        // 2841 links "207" (a redirect), then "1116: Traffic Lights" and "2179: NWS Warnings".
        #expect(try page(2841).linkedComics == [207, 1116, 2179])
        // 10 links 9 and 14 in the note above its Explanation heading, then 327 and 36 (twice).
        let pi = try page(10).linkedComics
        #expect(pi == [9, 14, 327, 36], "\(pi)")
    }

    @Test func theComicBoxAndTheEditLinksAreNotLinks() throws {
        // The box above the explanation links to the first, previous, next and latest comics;
        // the section edit links go to the page itself.
        let links = try page(1608).linkedComics
        #expect(links.contains(1611) && links.contains(1663))
        for navigation in [1, 1607, 1609, 3174] { #expect(!links.contains(navigation), "\(navigation)") }
        #expect(!(try page(327)).linkedComics.contains(327))
        #expect(try page(3042).linkedComics.isEmpty)
    }

    @Test func aFullWikiPageHasTheLinksOfItsAPIResponse() throws {
        // The same MediaWiki render of 2207, as a whole page and as the API's fragment.
        let full = try ExplainPageParser().parse(html: try Fixtures.wikiPage("2207.mw139.html"))
        #expect(full.linkedComics == (try page(2207)).linkedComics)
        #expect(full.linkedComics == [2034])
    }

    @Test func everyFormOfAComicLinkAndNothingElse() throws {
        let html = """
            <div class="mw-parser-output"><h2><span class="mw-headline" id="Explanation">Explanation</span></h2>
            <p><a href="/wiki/index.php?title=1000:_1000_Comics&amp;action=edit&amp;redlink=1" class="new">a</a>
            <a href="/wiki/index.php/327%3A_Exploits_of_a_Mom">b</a> <a href="/wiki/index.php/2">c</a>
            <a href="https://www.explainxkcd.com/wiki/index.php/55:_Useless">d</a> <a href="/wiki/index.php/2#Trivia">e</a>
            <a href="/wiki/index.php/Category:Comics_featuring_Cueball">f</a> <a href="https://xkcd.com/42/" class="external">g</a>
            <a href="/wiki/index.php/File:x.png">h</a> <a href="/wiki/index.php/Randall">i</a> <a href="/wiki/index.php/2016_(year)">j</a>
            <a href="/wiki/index.php/12345678901">k</a> <a href="/wiki/index.php/0">l</a> <a>m</a> <a href="">n</a></p>
            <h2><span class="mw-headline" id="Trivia">Trivia</span></h2><ul><li><a href="/wiki/index.php/7">o</a></li></ul>
            <h1>Discussion</h1><p><a href="/wiki/index.php/8">p</a></p></div>
            """
        #expect(try ExplainPageParser().parse(html: html).linkedComics == [1000, 327, 2, 55, 7])
    }
}
