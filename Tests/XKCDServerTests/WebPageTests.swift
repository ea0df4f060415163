import Foundation
import HTTPTypes
import Logging
import NIOCore
import Testing
import XKCDFiles
import XKCDKit
import XKCDServer
import XKCDStore
import _XKCDTestSupport

/// The web page's routes over real HTTP on loopback: what a browser is sent. The browser itself
/// is in Tests/CLITests/BrowserTests.swift.
@Suite("web page: routes, escaping, policy, favourites form")
struct WebPageTests {
    private static let html = "text/html; charset=utf-8"

    @Test func pagesAreHTMLWithTheirOwnPolicyAndTheAPIKeepsItsOwn() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive(checkingAnswers: false) { client in
            for uri in ["/", "/search?q=tables", "/327", "/favourites", "/about", "/relevant"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentType] == Self.html, "\(uri)")
                    let policy = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(
                        policy.contains("script-src 'self'") && policy.contains("style-src 'self'"), "\(uri): \(policy)"
                    )
                    #expect(policy.contains("img-src 'self'") && !policy.contains("unsafe"), "\(uri): \(policy)")
                    #expect(response.headers[values: .contentSecurityPolicy].count == 1, "one policy, not two")
                    #expect(
                        text(response).contains(#"<form class="search" role="search" action="/search" method="get">"#),
                        "\(uri)")
                }
            }
            try await client.execute(uri: "/api/comics/327", method: .get) { response in
                #expect(
                    response.headers[values: .contentSecurityPolicy] == [
                        "default-src 'none'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'"
                    ])
            }
            for uri in ["/static/site.css", "/static/site.js"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.cacheControl] == "public, max-age=3600", "\(uri)")
                }
            }
        }
    }

    @Test func aComicPageHasEverythingTheIssueAsksFor() async throws {
        let harness = try await Harness.make()
        // Its own image cache, holding #327's image.
        let images = try makeTemporaryDirectory("xkcd-web-images")
        let png = try Data(contentsOf: Fixtures.imagesURL.appendingPathComponent("exploits_of_a_mom.png"))
        try ImageCache(directory: images).keep(
            png, comic: 327, imageURL: "https://imgs.xkcd.com/comics/exploits_of_a_mom.png")
        // #472's could not be fetched lately: the page says so instead of a broken image.
        ImageCache(directory: images).rememberMissing(
            comic: 472, imageURL: "https://imgs.xkcd.com/comics/house_of_pancakes.png", reason: "offline")
        let server = try APIServer(
            configuration: .init(port: 0, requestDeadline: .seconds(600)),
            services: testServices(harness.database, images: images),
            logger: Logger(label: "web") { _ in SwiftLogNoOpLogHandler() })
        try await server.testLive(checkingAnswers: false) { client in
            try await client.execute(uri: "/images/327", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(Data(response.body.readableBytesView) == png)
            }
            try await client.execute(uri: "/472", method: .get) { response in
                #expect(text(response).contains("Its image could not be fetched lately"), "no broken image")
                #expect(!text(response).contains("<img"))
            }
            try await client.execute(uri: "/327", method: .get) { response in
                let page = text(response)
                for part in [
                    "<title>#327: Exploits of a Mom</title>",
                    #"<img src="/images/327" alt="Her daughter is named Help I&#39;m trapped"#,
                    #"<link rel="prev" href="/259">"#, #"<link rel="next" href="/472">"#,
                    #"rel="next" data-key="ArrowRight">"#,
                    #"<a href="/1">First</a>"#, #"<a href="/3282">Latest</a>"#, #"<a href="/random" data-key="r">"#,
                    "<summary>Explanation</summary>", #"<h2 id="transcript-heading">Transcript</h2>"#,
                    #"<h2 id="related-heading">Related comics</h2>"#, "Add to favourites</button>",
                    #"action="/327/favourite""#, "https://xkcd.com/327/",
                    "https://www.explainxkcd.com/wiki/index.php/327",
                    "(CC BY-NC 2.5)",
                ] {
                    #expect(page.contains(part), "no \(part)")
                }
            }
            try await client.execute(uri: "/random", method: .get) { response in
                #expect(response.status == .seeOther)
                let location = try #require(response.headers[.location])
                #expect(Fixtures.comicIDs.contains(Int(location.dropFirst()) ?? 0), "\(location)")
            }
            // A top-level name that is no comic (`/robots.txt`) is no page of the site: 404.
            for uri in ["/99999", "/abc", "/404", "/robots.txt", "/favicon.ico", "/index.html"] {
                let status = HTTPResponse.Status.notFound
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                    #expect(response.headers[.contentType] == Self.html, "\(uri)")
                    #expect(!text(response).contains("xkcd-search index"), "CLI advice in \(uri)")
                }
            }
        }
    }

    /// Every value goes through the template engine's escaping: a query holding markup comes
    /// back as text, in the search box and in the page's title.
    @Test func whatIsTypedComesBackEscaped() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive(checkingAnswers: false) { client in
            let typed = #""><script>alert(1)</script>"#
            let uri = "/search?q=" + SearchViewParameter.encode(typed)
            try await client.execute(uri: uri, method: .get) { response in
                let page = text(response)
                #expect(!page.contains("<script>alert"), "\(page)")
                #expect(page.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), "\(page)")
                // Its quote is never closed: the engine's reason, on the page, as a 400.
                #expect(response.status == .badRequest)
                #expect(page.contains(#"<p class="problem" role="alert">"#), "\(page)")
                #expect(!page.contains("comics found"), "no count for a query that was not searched")
            }
            try await client.execute(uri: "/search?q=", method: .get) { response in
                #expect(response.status == .ok)
                #expect(!text(response).contains(#"<li class="result">"#))
                #expect(!text(response).contains("comics found"), "no count for an empty box")
            }
            // Control characters never reach the page: the query is searched and shown without them.
            try await client.execute(uri: "/search?q=bob%00by%01+tables%1b", method: .get) { response in
                let page = text(response)
                #expect(response.status == .ok)
                #expect(!page.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(page.debugDescription)")
                #expect(page.contains("<title>bobby tables"), "\(page)")
            }
        }
    }

    @Test func searchResultsComeTwentyAtATimeWithMarkedWords() async throws {
        let harness = try await Harness.make()
        let engine = SearchEngine(database: harness.database, sentenceModel: .located())
        let expected = try engine.search("bobby tables", limit: 20)
        try await harness.server.testLive(checkingAnswers: false) { client in
            try await client.execute(uri: "/search?q=bobby%20tables", method: .get) { response in
                let page = text(response)
                #expect(page.contains(#"<li class="result">"#))
                let first = try #require(expected.results.first)
                #expect(page.contains(#"<a href="/\#(first.id)"><span class="num">#\#(first.id)</span>"#), "\(page)")
                #expect(page.contains("<mark>"), "matched words are marked")
                #expect(page.contains("\(expected.total) comic"), "the count")
            }
        }
    }

    /// The passage form: the comics that fit a passage posted, in `relevant`'s order, with why; the
    /// passage back in its box, escaped. Nothing posted, or a body past the limit, gets a page
    /// saying so; a passage past the limit is cut at a sentence end and the page says that too.
    @Test func aPassagePostedGetsTheComicsThatFitItWithWhy() async throws {
        let harness = try await Harness.make()
        let engine = SearchEngine(database: harness.database, sentenceModel: .located())
        let passage =
            "Our school lost this year's student records because a kid's name had a SQL command in it. <b>Sanitize</b> your inputs!"
        let expected = try engine.relevant(to: passage, limit: 20)
        let first = try #require(expected.results.first)
        #expect(first.id == 327)
        #expect(first.linkedFrom > 0)
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        try await harness.server.testLive(checkingAnswers: false) { client in
            try await client.execute(uri: "/relevant", method: .get) { response in
                #expect(response.status == .ok)
                #expect(text(response).contains(#"<form class="passage" action="/relevant" method="post">"#))
                #expect(!text(response).contains(#"<li class="result">"#))
            }
            try await client.execute(
                uri: "/relevant", method: .post, headers: form, body: SearchViewParameter.form(text: passage)
            ) {
                response in
                let page = text(response)
                #expect(response.status == .ok)
                let shown = page.matches(of: /<a href="\/(\d+)"><span class="num">/).map { Int($0.1)! }
                #expect(shown == expected.results.map(\.id))
                // Escaped as every value is: `kid's` is `kid&#39;s`.
                let words = first.words.joined(separator: ", ").replacingOccurrences(of: "'", with: "&#39;")
                #expect(page.contains("<li>shares the words: \(words)</li>"), "\(page)")
                // The harness's index holds no vectors: ranked by words alone, and the page says so.
                #expect(expected.semanticProblem != nil)
                #expect(
                    page.contains(
                        #"<p class="notice">ranked by words only: search by meaning is not available on this server</p>"#
                    ), "\(page)")
                #expect(!page.contains(harness.directory.path), "no path of the server's")
                #expect(page.contains("<li>linked from \(first.linkedFrom) other explanation"), "\(page)")
                #expect(page.contains("&lt;b&gt;Sanitize&lt;/b&gt; your inputs!</textarea>"), "\(page)")
                #expect(!page.contains("<b>Sanitize"))
            }
            // A passage with marks only, and one with control characters: neither reaches the page.
            try await client.execute(
                uri: "/relevant", method: .post, headers: form, body: SearchViewParameter.form(text: "<> !!! ()")
            ) {
                #expect($0.status == .badRequest)
                #expect(text($0).contains("the passage has no word that any comic holds"), "\(text($0))")
            }
            try await client.execute(
                uri: "/relevant", method: .post, headers: form,
                body: SearchViewParameter.form(text: "Sanitize\u{1B}[31m your\u{0} inputs\u{7}, said the school.")
            ) {
                #expect($0.status == .ok)
                #expect(!text($0).unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
                #expect(text($0).contains("Sanitize[31m your inputs, said the school.</textarea>"), "\(text($0))")
            }
            try await client.execute(
                uri: "/relevant", method: .post, headers: form, body: SearchViewParameter.form(text: " \n ")
            ) {
                #expect($0.status == .badRequest)
                #expect(text($0).contains("write or paste a passage first"))
            }
            let long = String(repeating: "The build broke again on a Friday afternoon. ", count: 1_600)
            try await client.execute(
                uri: "/relevant", method: .post, headers: form, body: SearchViewParameter.form(text: long)
            ) {
                #expect($0.status == .ok)
                #expect(text($0).contains("the passage has \(long.utf8.count) bytes, over the limit of 65536"))
            }
            let huge = ByteBuffer(string: "text=" + String(repeating: "a", count: APIServer.maximumRelevantBody))
            try await client.execute(uri: "/relevant", method: .post, headers: form, body: huge) {
                #expect($0.status == .contentTooLarge)
                #expect(text($0).contains("the passage is far over 65536 bytes"))
            }
        }
    }

    /// Another site's form must not change the favourites: refused before anything is read.
    @Test func theFavouriteFormIsRefusedFromAnotherSiteAndUnderReadOnly() async throws {
        let harness = try await Harness.make()
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .origin: "https://evil.example"]
        try await harness.server.testLive(checkingAnswers: false) { client in
            try await client.execute(
                uri: "/327/favourite", method: .post, headers: form, body: ByteBuffer(string: "action=add")
            ) { response in
                #expect(response.status == .forbidden)
            }
            var crossSite = form
            crossSite[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
            try await client.execute(
                uri: "/327/favourite", method: .post, headers: crossSite, body: ByteBuffer(string: "action=add")
            ) { response in
                #expect(response.status == .forbidden)
            }
        }
        #expect(try Library(database: harness.database).favourites().isEmpty)
        let readOnly = try APIServer(
            configuration: .init(port: 0, isReadOnly: true, requestDeadline: .seconds(600)),
            services: testServices(harness.database, images: harness.directory.appendingPathComponent("images")),
            logger: Logger(label: "read-only") { _ in SwiftLogNoOpLogHandler() })
        try await readOnly.testLive(checkingAnswers: false) { client in
            var sameOrigin: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            sameOrigin[HTTPField.Name("Sec-Fetch-Site")!] = "same-origin"
            try await client.execute(
                uri: "/327/favourite", method: .post, headers: sameOrigin, body: ByteBuffer(string: "action=add")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(text(response).contains("read-only"))
            }
            try await client.execute(uri: "/327", method: .get) {
                #expect(!text($0).contains("favourite\" method=\"post\""))
            }
        }
        #expect(try Library(database: harness.database).favourites().isEmpty)
    }
}

private enum SearchViewParameter {
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// A form's body with one field, `text`.
    static func form(text: String) -> ByteBuffer {
        ByteBuffer(string: "text=" + encode(text))
    }
}
