import Foundation
import Testing
import XKCDFetch
import XKCDModel
import _XKCDTestSupport

@Suite("XKCDJSON and ExplainAPI")
struct DecodingTests {
    @Test func decodesExploitsOfAMom() throws {
        let comic = try XKCDJSON.decodeComic(Fixtures.comicJSON(327))
        #expect(comic.id == 327)
        #expect(comic.title == "Exploits of a Mom")
        #expect(comic.safeTitle == "Exploits of a Mom")
        #expect(comic.alt == "Her daughter is named Help I'm trapped in a driver's license factory.")
        #expect(comic.transcript.contains("Little Bobby Tables"))
        #expect(comic.imageURL == "https://imgs.xkcd.com/comics/exploits_of_a_mom.png")
        #expect(comic.date == ComicDate(year: 2007, month: 10, day: 10))
    }

    @Test func decodesHoverboardWithItsEmptyImage() throws {
        let comic = try XKCDJSON.decodeComic(Fixtures.comicJSON(1608))
        #expect(comic.id == 1608)
        #expect(comic.title == "Hoverboard")
        #expect(comic.imageURL == "https://imgs.xkcd.com/comics/")
        #expect(comic.date.description == "2015-11-24")
    }

    @Test(arguments: Fixtures.comicIDs)
    func decodesEveryFixtureComic(id: Int) throws {
        #expect(try XKCDJSON.decodeComic(Fixtures.comicJSON(id)).id == id)
    }

    @Test func truncatedComicIsMalformed() throws {
        let data = try Fixtures.comicJSON(327)
        let error = #expect(throws: FetchError.self) { try XKCDJSON.decodeComic(data.prefix(data.count / 2)) }
        guard case .malformedJSON? = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
    }

    @Test func comicWithoutNumberIsUnexpected() {
        let data = Data(#"{"title": "x", "year": "2020", "month": "1", "day": "2"}"#.utf8)
        #expect(throws: FetchError.unexpectedJSON(source: "xkcd JSON", detail: "missing key num")) {
            try XKCDJSON.decodeComic(data)
        }
    }

    @Test(arguments: [("1e30", "1e+30"), ("3.5", "3.5")])
    func aNumberThatIsNoComicNumberIsSaidSo(_ number: String, _ shown: String) {
        let data = Data(#"{"num": \#(number), "title": "x", "year": "2020", "month": "1", "day": "2"}"#.utf8)
        #expect(throws: FetchError.unexpectedJSON(source: "xkcd JSON", detail: "num: \(shown) is not a comic number")) {
            try XKCDJSON.decodeComic(data)
        }
    }

    @Test func comicWithABadDateIsUnexpected() {
        let data = Data(#"{"num": 1, "title": "x", "year": "2020", "month": "13", "day": "2"}"#.utf8)
        #expect(throws: FetchError.self) { try XKCDJSON.decodeComic(data) }
    }

    @Test func decodesAnExplainPage() throws {
        let page = try #require(try ExplainAPI.decode(Fixtures.explainAPIResponse(327)))
        #expect(page.title == "327: Exploits of a Mom")
        #expect(page.revision == 687)
        #expect(page.html.hasPrefix("<div class=\"mw-parser-output\">"))
        #expect(Array(page.categories.prefix(3)) == ["All comics", "Comics from 2007", "Comics from October"])
        #expect(!page.categories.contains { $0.contains("_") })
    }

    @Test(arguments: Fixtures.explainedIDs)
    func decodesEveryFixtureExplanation(id: Int) throws {
        let page = try #require(try ExplainAPI.decode(Fixtures.explainAPIResponse(id)))
        #expect(page.title.hasPrefix("\(id): "))
    }

    @Test func missingTitleIsNil() throws {
        let data = Data(#"{"error":{"code":"missingtitle","info":"The page you specified doesn't exist."}}"#.utf8)
        #expect(try ExplainAPI.decode(data) == nil)
    }

    @Test func otherAPIErrorsThrow() {
        let data = Data(#"{"error":{"code":"badtitle","info":"Bad title \"\"."}}"#.utf8)
        #expect(throws: FetchError.apiError(source: "explain xkcd API", code: "badtitle", info: "Bad title \"\".")) {
            try ExplainAPI.decode(data)
        }
    }

    @Test func errorMessagesAreOneLowercaseLine() {
        let errors: [FetchError] = [
            .httpStatus(host: "xkcd.com", path: "/327/info.0.json", status: 500, attempts: 4),
            .timedOut(host: "xkcd.com", path: "/327/info.0.json", attempts: 3),
            .rateLimited(host: "www.explainxkcd.com", path: "/wiki/api.php?page=327", attempts: 1),
            .connectionFailed(host: "xkcd.com", path: "/1/info.0.json", reason: "connection refused", attempts: 4),
            .malformedJSON(source: "xkcd.com/327/info.0.json", detail: "unexpected end of file"),
        ]
        #expect(errors[0].description == "xkcd.com answered HTTP 500 for /327/info.0.json after 4 tries")
        #expect(errors[2].description == "rate limited by www.explainxkcd.com for /wiki/api.php?page=327 after 1 try")
        for error in errors {
            #expect(!error.description.contains("\n"))
            #expect(error.description.first?.isUppercase == false)
        }
    }
}
