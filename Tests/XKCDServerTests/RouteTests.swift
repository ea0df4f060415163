import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import XKCDFiles
import XKCDIndexer
import XKCDKit
import XKCDServer
import XKCDStore
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// An on-disk index of the fixture mirror (comics 1-10, 149, 327, …, 3282), and a server over it,
/// run live on loopback (``APIServer/testLive(checkingAnswers:_:)``: real HTTP). Built once: these routes only
/// read, and indexing the comics is most of the work. Indexed without vectors: ranked by words.
struct Harness: Sendable {
    let directory: URL
    let database: ComicDatabase
    let server: APIServer

    private static let shared = Task<Harness, any Error> { try await build() }

    static func make() async throws -> Harness { try await shared.value }

    /// Another server over the same index: `images` is its image cache (default: the harness's).
    func server(_ configuration: APIServer.Configuration, images: URL? = nil, logger: Logger? = nil) throws -> APIServer
    {
        try APIServer(
            configuration: configuration,
            services: testServices(database, images: images ?? directory.appendingPathComponent("images")),
            logger: logger ?? Logger(label: "xkcd-server-tests") { _ in SwiftLogNoOpLogHandler() })
    }

    /// An index of its own, for tests that change it.
    static func build(_ configuration: APIServer.Configuration = .init(port: 0, requestDeadline: .seconds(600)))
        async throws -> Harness
    {
        let directory = try makeTemporaryDirectory("xkcd-server-tests")
        let database = try ComicDatabase.open(at: directory.appendingPathComponent("index.sqlite").path)
        let logger = Logger(label: "xkcd-server-tests") { _ in SwiftLogNoOpLogHandler() }
        _ = try await Indexer(
            database: database, source: MirrorComicSource(directory: Fixtures.corpusURL), logger: logger
        ).run()
        let server = try APIServer(
            configuration: configuration,
            services: testServices(database, images: directory.appendingPathComponent("images")),
            logger: logger)
        return Harness(directory: directory, database: database, server: server)
    }
}

func text(_ response: LiveResponse) -> String { String(buffer: response.body) }

/// The `{"error": {"code", "message"}}` of an answer.
func errorCode(_ response: LiveResponse) -> String? {
    struct Document: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
        }
        var error: Detail
    }
    return try? JSONDecoder().decode(Document.self, from: Data(text(response).utf8)).error.code
}

@Suite("HTTP API: routes over real HTTP on loopback")
struct RouteTests {
    @Test func healthAndSecurityHeadersOnEveryAnswer() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            for uri in ["/healthz", "/api/nothing-here"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                    #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true, "\(uri)")
                    #expect(response.headers[.contentType]?.hasPrefix("application/json") == true, "\(uri)")
                }
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }

    /// Public answers may be read by a page of any origin, without credentials; what tells of the
    /// owner's favourites (a comic's document, the stats, a search by them) may not.
    @Test func anyOriginMayReadThePublicAnswersButNotTheFavourites() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            let origin: HTTPFields = [.origin: "https://bot.example"]
            for uri in ["/api/search?q=tables", "/api/comics/327/related", "/healthz"] {
                try await client.execute(uri: uri, method: .get, headers: origin) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.accessControlAllowOrigin] == "*", "\(uri)")
                    #expect(response.headers[.accessControlAllowCredentials] == nil, "\(uri)")
                }
            }
            try await client.execute(uri: "/api/search?q=tables", method: .options, headers: origin) { response in
                #expect(response.headers[.accessControlAllowOrigin] == "*")
                #expect(response.headers[.accessControlAllowMethods] == "GET, OPTIONS")
            }
            for uri in ["/api/comics/327", "/api/comics/latest", "/api/stats", "/api/favourites"] {
                try await client.execute(uri: uri, method: .get, headers: origin) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.accessControlAllowOrigin] == nil, "\(uri)")
                }
            }
            for query in ["is:fav", "tables tag:sql", "is:fav -tables"] {
                let uri = "/api/search?q=" + query.replacingOccurrences(of: " ", with: "+")
                try await client.execute(uri: uri, method: .get, headers: origin) { response in
                    #expect(response.status == .forbidden, "\(query)")
                    #expect(errorCode(response) == "cross-origin", "\(query)")
                }
                try await client.execute(uri: uri, method: .get, headers: [.origin: "http://localhost"]) {
                    #expect($0.status == .ok, "a page of this server may: \(query)")
                }
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .ok, "a script may: \(query)") }
            }
        }
    }

    /// The router reads a path by its segments, so these reach the private routes too; the
    /// OpenAPI document does not name them, so their answers are not checked against it.
    @Test func pathsWithEmptySegmentsGetNoCORSHeaderForTheFavourites() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive(checkingAnswers: false) { client in
            for uri in ["/api//favourites", "/api/stats/", "/api/comics/327/", "/api/comics//327"] {
                try await client.execute(uri: uri, method: .get, headers: [.origin: "https://bot.example"]) {
                    response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.accessControlAllowOrigin] == nil, "\(uri)")
                }
            }
        }
    }

    /// `HEAD` is answered as `GET` would be, with the same status and length and no body; a
    /// path with a control character once decoded is refused.
    @Test func headIsAnsweredAsGetWithoutTheBodyAndControlCharactersAreRefused() async throws {
        let harness = try await Harness.make()
        // Not checked against the OpenAPI document, which names GET only and not the pages.
        try await harness.server.testLive(checkingAnswers: false) { client in
            for uri in ["/healthz", "/api/comics/327", "/api/search?q=tables", "/327", "/static/site.css"] {
                let length = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri)")
                    return response.body.readableBytes
                }
                try await client.execute(uri: uri, method: .head) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.body.readableBytes == 0, "\(uri)")
                    #expect(response.headers[.contentLength] == String(length), "\(uri)")
                }
            }
            try await client.execute(uri: "/api/comics/99999", method: .head) { #expect($0.status == .notFound) }
            for uri in [
                "/static/site.css%00.html", "/static/icon.svg%00.html", "/api/comics/327%01",
                "/static/site.css%00%E9.html",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(errorCode(response) == "bad-request", "\(uri)")
                }
            }
        }
    }

    @Test func searchAnswersWhatSearchJSONPrints() async throws {
        let harness = try await Harness.make()
        let engine = SearchEngine(database: harness.database, sentenceModel: .located())
        let expected = try JSONDocument.line(SearchResultsDocument(engine.search("tables", limit: 3, page: 1)))
        #expect(expected.contains("\"num\":327"))
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/search?q=tables&limit=3", method: .get) { response in
                #expect(response.status == .ok)
                #expect(text(response) == expected)
            }
            let exact = try JSONDocument.line(SearchResultsDocument(engine.search("tabels", correctingSpelling: false)))
            try await client.execute(uri: "/api/search?q=tabels&exact=1", method: .get) { #expect(text($0) == exact) }
        }
    }

    @Test(arguments: [
        ("/api/search", "missing-query"), ("/api/search?q=", "missing-query"),
        ("/api/search?q=tables&page=0", "bad-parameter"), ("/api/search?q=tables&page=abc", "bad-parameter"),
        ("/api/search?q=tables&limit=1001", "bad-parameter"), ("/api/search?q=tables&exact=maybe", "bad-parameter"),
        ("/api/search?q=%22unclosed", "unreadable-query"), ("/api/comics/abc", "bad-comic"),
        ("/api/comics/0", "bad-comic"),
    ])
    func badRequestsAre400WithAJSONError(uri: String, code: String) async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .badRequest, "\(uri)")
                #expect(errorCode(response) == code, "\(uri): \(text(response))")
            }
        }
    }

    /// Past the engine's 4 KB, within the request line's 8 KB (a longer one is a 414, RequestLimitTests).
    @Test func aVeryLongQueryIsRefusedAsUnreadable() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/search?q=" + String(repeating: "a", count: 6_000), method: .get) {
                response in
                #expect(response.status == .badRequest)
                #expect(errorCode(response) == "unreadable-query")
            }
        }
    }

    @Test func comicsAnswerWhatShowJSONPrints() async throws {
        let harness = try await Harness.make()
        let library = Library(database: harness.database)
        let comic = try JSONDocument.line(ComicDocument(page: library.show(.number(327)), withExplanation: false))
        let latest = try JSONDocument.line(ComicDocument(page: library.show(.latest), withExplanation: false))
        #expect(latest.contains("\"num\":3282"))
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/comics/327", method: .get) { #expect(text($0) == comic) }
            try await client.execute(uri: "/api/comics/latest", method: .get) { #expect(text($0) == latest) }
            for uri in ["/api/comics/404", "/api/comics/99999", "/api/comics/12"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(errorCode(response) == "not-found", "\(uri)")
                    #expect(!text(response).contains("xkcd-search index"), "CLI advice in \(uri)")
                }
            }
        }
    }

    @Test func explanationsRelatedAndRandomComics() async throws {
        let harness = try await Harness.make()
        let library = Library(database: harness.database)
        let explained = try JSONDocument.line(ComicDocument(page: library.show(.number(327)), withExplanation: true))
        #expect(explained.contains("\"explanation\":\""))
        let related = try JSONDocument.line(RelatedDocument(library.related(.number(327))))
        #expect(related.contains("\"reasons\":["))
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/comics/327?explain=1", method: .get) { #expect(text($0) == explained) }
            try await client.execute(uri: "/api/comics/327/related", method: .get) { #expect(text($0) == related) }
            try await client.execute(uri: "/api/comics/random", method: .get) { response in
                struct Comic: Decodable { var num: Int }
                let comic = try JSONDecoder().decode(Comic.self, from: Data(text(response).utf8))
                #expect(Fixtures.comicIDs.contains(comic.num), "\(comic.num)")
            }
            try await client.execute(uri: "/api/comics/327?explain=maybe", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(errorCode(response) == "bad-parameter")
            }
            try await client.execute(uri: "/api/comics/99999/related", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test func suggestionsCompleteTitlesAndTheLastWord() async throws {
        let harness = try await Harness.make()
        let library = Library(database: harness.database)
        let titles = try library.suggestions(for: "exploits")
        #expect(titles.first == "Exploits of a Mom", "\(titles)")
        let words = try library.suggestions(for: "bobby tab")
        #expect(words.contains("bobby tables"), "\(words)")
        #expect(words.allSatisfy { $0.hasPrefix("bobby tab") }, "\(words)")
        #expect(try library.suggestions(for: "t").count == 10)
        #expect(try library.suggestions(for: "   ").isEmpty)
        #expect(try library.suggestions(for: "100%_").isEmpty, "LIKE's wildcards are taken as typed")
        let expected = try JSONDocument.line(SuggestionsDocument(query: "bobby tab", suggestions: words))
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/suggest?q=bobby%20tab", method: .get) { response in
                #expect(response.status == .ok)
                #expect(text(response) == expected)
            }
            try await client.execute(uri: "/api/suggest", method: .get) {
                #expect(text($0) == #"{"query":"","suggestions":[]}"#)
            }
            try await client.execute(uri: "/api/suggest?q=" + String(repeating: "a", count: 5000), method: .get) {
                response in
                #expect(response.status == .badRequest)
                #expect(errorCode(response) == "unreadable-query")
            }
        }
    }

    /// A comic's document says whether it is a favourite, so it is kept by the browser alone and
    /// asked again each time with its ETag: 304, no body. `random` is never kept.
    @Test func comicsCarryCacheControlAndAnETag() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            let tag = try await client.execute(uri: "/api/comics/327", method: .get) { response in
                #expect(response.headers[.cacheControl] == "private, no-cache")
                return try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/api/comics/327", method: .get, headers: [.ifNoneMatch: "\"other\", \(tag)"])
            { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == tag)
            }
            try await client.execute(uri: "/api/comics/327?explain=1", method: .get, headers: [.ifNoneMatch: tag]) {
                response in
                #expect(response.status == .ok, "another document, another tag")
                #expect(response.headers[.eTag] != tag)
            }
            try await client.execute(uri: "/api/comics/327/related", method: .get) { response in
                #expect(response.headers[.eTag] != nil)
                #expect(response.headers[.cacheControl] == "public, max-age=3600", "no favourite in it")
            }
            try await client.execute(uri: "/api/comics/latest", method: .get) {
                #expect($0.headers[.cacheControl] == "private, no-cache")
            }
            try await client.execute(uri: "/api/comics/random", method: .get) { response in
                #expect(response.headers[.cacheControl] == "no-store")
                #expect(response.headers[.eTag] == nil)
            }
        }
    }

    @Test func statsAnswerWhatStatsJSONPrintsWithoutThePath() async throws {
        let harness = try await Harness.make()
        let services = testServices(harness.database, images: harness.directory.appendingPathComponent("images"))
        var stats = try StatsRequest().run(in: services.open(.reading))
        stats.database = "index.sqlite"
        let expected = try JSONDocument.line(stats)
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/stats", method: .get) { response in
                #expect(response.status == .ok)
                #expect(text(response) == expected)
                #expect(!text(response).contains(harness.directory.path))
            }
        }
    }

    @Test func unknownRoutesAre404AndOtherMethods405() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/nope", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(errorCode(response) == "not-found")
            }
            for method in [HTTPRequest.Method.post, .put, .delete, .trace] {
                try await client.execute(uri: "/api/search?q=tables", method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method)")
                    #expect(response.headers[.allow] == "GET")
                    #expect(errorCode(response) == "method-not-allowed")
                }
            }
            for method in [HTTPRequest.Method.get, .trace] {
                try await client.execute(uri: "/api/relevant", method: method) { response in
                    #expect(response.status == .methodNotAllowed, "\(method)")
                    #expect(response.headers[.allow] == "POST")
                }
            }
        }
    }

    /// DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends its own name.
    @Test func aHostHeaderNamingAnotherServerIsRefused() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            let port = client.port
            let other = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: LiveClient.hangGuard))
            other.connect()
            for (authority, allowed) in [
                ("evil.example:\(port)", false), ("127.0.0.1.evil.example", false), ("127.0.0.1:\(port)", true),
                ("LOCALHOST:\(port)", true),
            ] {
                let response: TestClient.Response
                do {
                    response = try await other.execute(
                        TestClient.Request("/healthz", method: .get, authority: authority))
                } catch {
                    try? await other.shutdown()
                    throw error
                }
                #expect((response.status == .ok) == allowed, "\(authority): \(response.status)")
                if !allowed {
                    #expect(response.status == .badRequest)
                    #expect(response.headers[.xContentTypeOptions] == "nosniff")
                }
            }
            try await other.shutdown()
        }
    }

    /// A connection that never sends a request is closed after the idle timeout (1 s here).
    @Test func anIdleConnectionIsClosed() async throws {
        let harness = try await Harness.make()
        let server = try APIServer(
            configuration: .init(port: 0, idleTimeout: .seconds(1), requestDeadline: .seconds(600)),
            services: testServices(harness.database, images: harness.directory.appendingPathComponent("images")),
            logger: Logger(label: "idle") { _ in SwiftLogNoOpLogHandler() })
        try await server.testLive { client in
            let port = client.port
            let read = await offTheTaskPool { readUntilClosed(port: port) }
            #expect(read == 0, "0: closed by the server; -1: the hang guard of 600 s passed or the connection failed")
        }
    }
}

/// Connects to 127.0.0.1:`port`, sends nothing and reads: 0 once the server closes the connection,
/// -1 when the connection fails or nothing happens within the hang guard of 600 s.
private func readUntilClosed(port: Int) -> Int {
    guard let socket = loopbackSocket(port: port) else { return -1 }
    defer { close(socket) }
    var byte: UInt8 = 0
    return Glibc.read(socket, &byte, 1)
}

/// A socket connected to 127.0.0.1:`port` whose reads and writes give up after the hang guard
/// of 600 s; nil when the connection fails.
func loopbackSocket(port: Int) -> Int32? {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        close(socket)
        return nil
    }
    var hangGuard = timeval(tv_sec: 600, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &hangGuard, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &hangGuard, socklen_t(MemoryLayout<timeval>.size))
    return socket
}

@Suite("HTTP API: POST /api/relevant over real HTTP on loopback")
struct RelevantRouteTests {
    static let situation = """
        Our whole company runs on a tiny parsing library that one volunteer has looked after \
        in his spare time for fifteen years. Nobody here has ever thanked him.
        """

    private func body(_ text: String) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONEncoder().encode(["text": text]))
    }

    @Test func aPassageAnswersWhatRelevantJSONPrints() async throws {
        let harness = try await Harness.make()
        let engine = SearchEngine(database: harness.database, sentenceModel: .located())
        let expected = try JSONDocument.line(RelevantDocument(engine.relevant(to: Self.situation, limit: 3)))
        #expect(expected.contains("\"num\":2347"))
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/relevant?limit=3", method: .post, body: try body(Self.situation)) {
                response in
                #expect(response.status == .ok)
                #expect(text(response) == expected)
            }
        }
    }

    @Test func aPassageOverTheLimitIs413AndABadBody400() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            let long = String(repeating: "a", count: SearchEngine.maximumPassageLength + 1)
            try await client.execute(uri: "/api/relevant", method: .post, body: try body(long)) { response in
                #expect(response.status == .contentTooLarge)
                #expect(errorCode(response) == "passage-too-large", "\(text(response))")
            }
            let huge = ByteBuffer(repeating: UInt8(ascii: " "), count: APIServer.maximumRelevantBody + 1)
            try await client.execute(uri: "/api/relevant", method: .post, body: huge) { response in
                #expect(response.status == .contentTooLarge)
                #expect(errorCode(response) == "passage-too-large", "\(text(response))")
            }
            try await client.execute(uri: "/api/relevant", method: .post, body: ByteBuffer(string: "text=hello")) {
                response in
                #expect(response.status == .badRequest)
                #expect(errorCode(response) == "bad-body")
            }
        }
    }
}

/// What a server over `database` is built from: its path, the image cache `images` and the
/// model (found where the executables find it unless given).
func testServices(_ database: ComicDatabase, images: URL, model: SentenceModel? = nil) -> Services {
    var paths = Paths(database: database.path!)
    paths.imagesDirectory = images
    return Services(
        paths: paths, logger: Logger(label: "xkcd-server-tests") { _ in SwiftLogNoOpLogHandler() }, model: model)
}
