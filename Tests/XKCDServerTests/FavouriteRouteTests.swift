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

/// What a page of this server sends: the live test client names the server `localhost`.
private let sameOrigin: HTTPFields = [.origin: "http://localhost", .contentType: "application/json"]

private func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

@Suite("HTTP API: favourites over real HTTP on loopback")
struct FavouriteRouteTests {
    /// PUT sets the tags (twice is the same as once), GET lists what `fav list --json` prints,
    /// DELETE removes; none of it readable by another site.
    @Test func putListAndDeleteAFavourite() async throws {
        let harness = try await Harness.build()
        let library = Library(database: harness.database)
        try await harness.server.testLive { client in
            for _ in 0..<2 {
                try await client.execute(
                    uri: "/api/favourites/327", method: .put, headers: sameOrigin,
                    body: body(#"{"tags": ["SQL", "classic"]}"#)
                ) { response in
                    #expect(response.status == .ok, "\(text(response))")
                    #expect(text(response).contains(#""tags":["classic","sql"]"#), "\(text(response))")
                    #expect(response.headers[.accessControlAllowOrigin] == nil)
                }
            }
            try await client.execute(
                uri: "/api/favourites/327", method: .put, headers: sameOrigin, body: body(#"{"tags": ["classic"]}"#)
            ) {
                #expect($0.status == .ok)
            }
            let expected = try JSONDocument.line(try library.favourites().map(FavouriteDocument.init))
            #expect(
                expected.contains(#""num":327"#) && expected.contains(#""tags":["classic"]"#),
                "PUT replaces the tags: \(expected)")
            try await client.execute(
                uri: "/api/favourites", method: .get, headers: [.origin: "https://elsewhere.example"]
            ) { response in
                #expect(response.status == .ok)
                #expect(text(response) == expected)
                #expect(response.headers[.accessControlAllowOrigin] == nil, "never readable by another site")
                #expect(response.headers[.cacheControl] == "no-store")
            }
            try await client.execute(
                uri: "/api/favourites/327", method: .delete, headers: [.origin: "http://localhost"]
            ) {
                #expect($0.status == .noContent)
            }
            #expect(try library.favourites().isEmpty)
            try await client.execute(
                uri: "/api/favourites/327", method: .delete, headers: [.origin: "http://localhost"]
            ) { response in
                #expect(response.status == .notFound)
                #expect(errorCode(response) == "not-found")
            }
            try await client.execute(uri: "/api/favourites", method: .get) { #expect(text($0) == "[]") }
        }
    }

    /// CSRF: another site's page (its Origin, or Sec-Fetch-Site: cross-site or same-site), a
    /// form's content type, or a sandboxed page's `null` origin are refused; curl with neither
    /// header is not a browser and is let through.
    @Test(
        arguments: [
            ([HTTPField.Name.origin: "https://evil.example", .contentType: "application/json"], "cross-origin"),
            ([.origin: "http://localhost:9999", .contentType: "application/json"], "cross-origin"),
            ([.origin: "null", .contentType: "application/json"], "cross-origin"),
            ([HTTPField.Name("Sec-Fetch-Site")!: "cross-site", .contentType: "application/json"], "cross-origin"),
            ([HTTPField.Name("Sec-Fetch-Site")!: "same-site", .contentType: "application/json"], "cross-origin"),
            ([.origin: "http://localhost", .contentType: "application/x-www-form-urlencoded"], "not-json"),
            ([.origin: "http://localhost", .contentType: "text/plain"], "not-json"),
            ([.origin: "http://localhost"], "not-json"),
        ] as [([HTTPField.Name: String], String)])
    func changesFromAnotherSiteOrNotJSONAre403(headers: [HTTPField.Name: String], code: String) async throws {
        let harness = try await Harness.make()
        let fields = HTTPFields(headers.map { HTTPField(name: $0.key, value: $0.value) })
        try await harness.server.testLive { client in
            try await client.execute(
                uri: "/api/favourites/327", method: .put, headers: fields, body: body(#"{"tags": []}"#)
            ) { response in
                #expect(response.status == .forbidden, "\(headers)")
                #expect(errorCode(response) == code, "\(headers): \(text(response))")
            }
        }
        #expect(try Library(database: harness.database).favourites().isEmpty, "nothing was changed")
    }

    /// A page of another site asking leave to PUT (a CORS preflight) gets no CORS header: the
    /// browser then sends no PUT at all.
    @Test func anotherSitesPreflightIsNotGranted() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            let preflight: HTTPFields = [.origin: "https://evil.example", .accessControlRequestMethod: "PUT"]
            try await client.execute(uri: "/api/favourites/327", method: .options, headers: preflight) { response in
                #expect(response.headers[.accessControlAllowOrigin] == nil)
                #expect(response.headers[.accessControlAllowMethods] == nil)
            }
        }
    }

    @Test func curlWithoutOriginMayChangeThem() async throws {
        let harness = try await Harness.build()
        try await harness.server.testLive { client in
            let curl: HTTPFields = [
                .contentType: "application/json; charset=utf-8", HTTPField.Name("Sec-Fetch-Site")!: "none",
            ]
            try await client.execute(
                uri: "/api/favourites/149", method: .put, headers: curl, body: body(#"{"tags": ["sandwich"]}"#)
            ) {
                #expect($0.status == .ok, "\(text($0))")
            }
            try await client.execute(uri: "/api/favourites/149", method: .delete) { #expect($0.status == .noContent) }
        }
    }

    @Test(arguments: [
        ("/api/favourites/327", "not json", HTTPResponse.Status.badRequest, "bad-body"),
        ("/api/favourites/327", #"{"tags": "sql"}"#, .badRequest, "bad-body"),
        // openapi.json's Tags: a list, required (Schemathesis found null accepted).
        ("/api/favourites/327", #"{"tags": null}"#, .badRequest, "bad-body"),
        ("/api/favourites/327", "{}", .badRequest, "bad-body"),
        ("/api/favourites/327", #"{"tags": ["two words"]}"#, .badRequest, "bad-tag"),
        ("/api/favourites/abc", #"{"tags": []}"#, .badRequest, "bad-comic"),
        ("/api/favourites/latest", #"{"tags": []}"#, .badRequest, "bad-comic"),
        ("/api/favourites/12", #"{"tags": []}"#, .notFound, "not-found"),
        ("/api/favourites/99999", #"{"tags": []}"#, .notFound, "not-found"),
    ])
    func badBodiesAndComicsAreRefused(uri: String, sent: String, status: HTTPResponse.Status, code: String) async throws
    {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            try await client.execute(uri: uri, method: .put, headers: sameOrigin, body: body(sent)) { response in
                #expect(response.status == status, "\(uri) \(sent): \(text(response))")
                #expect(errorCode(response) == code, "\(uri) \(sent): \(text(response))")
                #expect(!text(response).contains(harness.directory.path))
            }
        }
    }

    /// A body past 64 KB: 413, whether announced by Content-Length or not.
    @Test func aLargeBodyIs413() async throws {
        let harness = try await Harness.make()
        let tags = "[" + Array(repeating: #""sql""#, count: 20_000).joined(separator: ",") + "]"
        try await harness.server.testLive { client in
            try await client.execute(
                uri: "/api/favourites/327", method: .put, headers: sameOrigin, body: body(#"{"tags": \#(tags)}"#)
            ) { response in
                #expect(response.status == .contentTooLarge)
                #expect(errorCode(response) == "too-large", "\(text(response))")
            }
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok, "still serving") }
        }
    }

    @Test func readOnlyRefusesChangesButLists() async throws {
        let harness = try await Harness.make()
        let server = try harness.server(.init(port: 0, isReadOnly: true, requestDeadline: .seconds(600)))
        try await server.testLive { client in
            try await client.execute(
                uri: "/api/favourites/327", method: .put, headers: sameOrigin, body: body(#"{"tags": []}"#)
            ) { response in
                #expect(response.status == .forbidden)
                #expect(errorCode(response) == "read-only")
            }
            try await client.execute(uri: "/api/favourites/327", method: .delete, headers: sameOrigin) { response in
                #expect(response.status == .forbidden)
                #expect(errorCode(response) == "read-only")
            }
            try await client.execute(uri: "/api/favourites", method: .get) { #expect($0.status == .ok) }
        }
    }

    /// An index file the server cannot write (opened read-only, as a file of another user is):
    /// 403 `read-only` as under `--read-only`, not a 500.
    @Test func anIndexThatCannotBeWrittenRefusesChangesWith403() async throws {
        let harness = try await Harness.make()
        let readOnly = try ComicDatabase.open(
            at: harness.directory.appendingPathComponent("index.sqlite").path, connections: .readOnly)
        let server = try APIServer(
            configuration: .init(port: 0, requestDeadline: .seconds(600)),
            services: testServices(readOnly, images: harness.directory.appendingPathComponent("images")),
            access: .reading,
            logger: Logger(label: "read-only") { _ in SwiftLogNoOpLogHandler() })
        try await server.testLive { client in
            try await client.execute(
                uri: "/api/favourites/327", method: .put, headers: sameOrigin, body: body(#"{"tags": []}"#)
            ) { response in
                #expect(response.status == .forbidden, "\(text(response))")
                #expect(errorCode(response) == "read-only")
            }
        }
    }

    @Test func otherMethodsAre405NamingTheAllowedOnes() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive { client in
            try await client.execute(uri: "/api/favourites/327", method: .get) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "PUT, DELETE")
            }
            try await client.execute(uri: "/api/favourites", method: .post, headers: sameOrigin) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET")
            }
        }
    }
}
