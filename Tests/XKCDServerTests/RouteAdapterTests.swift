import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import XKCDKit
import XKCDServer

/// The routes as adapters, in HummingbirdTesting's router mode (no socket): each turns a URL into
/// the request type XKCDKit checks, and its answer into the document the request's own run
/// gives. What is tested here is the translation; the requests' rules are RequestTests', and the
/// live server's behaviour the other suites'.
@Suite struct RouteAdapterTests {
    /// A request as the harness's index answers it, run directly.
    func direct<T>(_ run: (OpenIndex) throws -> T) async throws -> T {
        let harness = try await Harness.make()
        let services = testServices(harness.database, images: harness.directory.appendingPathComponent("images"))
        return try run(try services.open(.reading))
    }

    func answer(_ uri: String, method: HTTPRequest.Method = .get, body: String? = nil) async throws -> (
        status: Int, body: String
    ) {
        let server = try await Harness.make().server
        return try await server.makeApplication().test(.router) { client in
            try await client.execute(
                uri: uri, method: method, headers: [.contentType: "application/json"],
                body: body.map { ByteBuffer(string: $0) }
            ) { response in (Int(response.status.code), String(buffer: response.body)) }
        }
    }

    @Test func searchParametersBecomeASearchRequest() async throws {
        let expected = try await direct { index in
            try JSONDocument.line(
                SearchResultsDocument(try SearchRequest(text: "bobby tables", limit: 3).run(in: index)))
        }
        let answered = try await answer("/api/search?q=bobby%20tables&limit=3")
        #expect(answered.status == 200)
        #expect(answered.body == expected)
    }

    @Test(arguments: [
        ("/api/search?q=a&limit=0", RequestError.outOfRange(.limit, value: "0", allowed: "between 1 and 1000")),
        ("/api/search", .missing(.query)),
        ("/api/search?q=a&exact=maybe", .outOfRange(.exact, value: "maybe", allowed: "1, true, 0 or false")),
    ])
    func aRequestsRuleIsAnsweredInItsOwnWords(_ uri: String, _ error: RequestError) async throws {
        let answered = try await answer(uri)
        #expect(answered.status == 400)
        #expect(answered.body.contains(#""message":"\#(error.description)""#), "\(answered.body)")
        #expect(answered.body.contains(#""code":"\#(ErrorClass(of: error).code)""#), "\(answered.body)")
    }

    @Test func aComicsPathBecomesAComicRequest() async throws {
        let expected = try await direct { index in
            try JSONDocument.line(try ComicRequest(comic: "327", withExplanation: true).document(in: index))
        }
        let answered = try await answer("/api/comics/327?explain=1")
        #expect(answered.status == 200)
        #expect(answered.body == expected)
    }

    @Test func aPassageBecomesARelevantRequest() async throws {
        let passage = "our build takes twenty minutes so we fight with swords while it compiles"
        let expected = try await direct { index in
            try JSONDocument.line(RelevantDocument(try RelevantRequest(passage: passage, limit: 4).run(in: index)))
        }
        let answered = try await answer("/api/relevant?limit=4", method: .post, body: #"{"text": "\#(passage)"}"#)
        #expect(answered.status == 200)
        #expect(answered.body == expected)
    }

    @Test func statsNameTheFileAlone() async throws {
        let expected = try await direct { index in
            try JSONDocument.line(try StatsRequest(namesFileOnly: true).run(in: index))
        }
        let answered = try await answer("/api/stats")
        #expect(answered.body == expected)
        #expect(answered.body.contains(#""database":"index.sqlite""#), "no path of the machine: \(answered.body)")
    }
}
