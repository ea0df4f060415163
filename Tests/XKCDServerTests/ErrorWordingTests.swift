import Foundation
import HTTPTypes
import Logging
import Testing
import XKCDKit
import XKCDServer
import XKCDStore
import _XKCDTestSupport

/// The conditions the command line answers with advice for a terminal (no index, no model) as
/// the API words them for its clients: what is wrong, never a command to run or a path.
@Suite("HTTP API: its own words for the library's errors")
struct ErrorWordingTests {
    static let terminalAdvice = ["xkcd-search index", "make model", "XKCD_SEARCH_MODEL", "run '", "/nonexistent"]

    @Test func anEmptyIndexIsSaidWithoutTheCommandThatFillsIt() async throws {
        let directory = try makeTemporaryDirectory("xkcd-server-wording")
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try ComicDatabase.open(at: directory.appendingPathComponent("index.sqlite").path)
        let server = try APIServer(
            configuration: .init(port: 0, requestDeadline: .seconds(600)),
            services: testServices(database, images: directory.appendingPathComponent("images")),
            logger: Logger(label: "xkcd-server-tests") { _ in SwiftLogNoOpLogHandler() })
        try await server.testLive { client in
            try await client.execute(uri: "/api/comics/latest", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(errorCode(response) == "not-found")
                #expect(text(response).contains("the index holds no comics yet"), "\(text(response))")
                for advice in Self.terminalAdvice { #expect(!text(response).contains(advice), "\(text(response))") }
            }
        }
    }

    /// Without its model the server searches by words, and `/api/stats` says search by meaning
    /// is off, from the same model the searches use; no answer names the model's path.
    @Test func withoutAModelSearchesAreByWordsAndStatsSaysSo() async throws {
        let harness = try await Harness.make()
        let server = try APIServer(
            configuration: .init(port: 0, requestDeadline: .seconds(600)),
            services: testServices(
                harness.database, images: harness.directory.appendingPathComponent("images"),
                model: SentenceModel(directory: URL(fileURLWithPath: "/nonexistent/model"))),
            logger: Logger(label: "xkcd-server-tests") { _ in SwiftLogNoOpLogHandler() })
        let description = "a guy asks his buddy to fix him lunch and only obeys once he invokes superuser privileges"
        try await server.testLive { client in
            let query = description.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try await client.execute(uri: "/api/search?q=\(query)", method: .get) { response in
                #expect(response.status == .ok, "\(text(response))")
                #expect(text(response).contains("\"results\":[{"), "\(text(response))")
                for advice in Self.terminalAdvice { #expect(!text(response).contains(advice), "\(text(response))") }
            }
            try await client.execute(uri: "/api/stats", method: .get) { response in
                #expect(response.status == .ok)
                #expect(text(response).contains("\"semanticSearch\":false"), "\(text(response))")
                for advice in Self.terminalAdvice { #expect(!text(response).contains(advice), "\(text(response))") }
            }
        }
    }
}
