import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import ServiceLifecycle
import Testing
import XKCDServer

/// An answer of the real server, as the route tests read it.
struct LiveResponse: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: ByteBuffer
}

/// Real HTTP on loopback to the real server: HummingbirdTesting's `.live`, but with a wait only a
/// hang exceeds. `.live` gives each request 20 s in all, and a starved 2-core machine running the
/// whole suite has been that slow once; a test must wait for the answer, not for a time.
struct LiveClient: Sendable {
    /// Long enough for any machine that is working at all; only a hang meets it.
    static let hangGuard: Duration = .seconds(600)

    let client: TestClient
    let port: Int
    /// Whether each answer is checked against the OpenAPI document (``OpenAPIChecker``).
    let checksAnswers: Bool

    func execute<Return>(
        uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
        testCallback: (LiveResponse) async throws -> Return = { $0 }
    ) async throws -> Return {
        var headers = headers
        headers[.connection] = "keep-alive"
        let answer = try await client.execute(
            TestClient.Request(uri, method: method, authority: "localhost", headers: headers, body: body))
        let response = LiveResponse(status: answer.status, headers: answer.headers, body: answer.body ?? ByteBuffer())
        if checksAnswers,
            let verdict = try await OpenAPIChecker.shared.verdict(method: method, uri: uri, response: response)
        {
            #expect(
                verdict == "ok", "\(method) \(uri) answered \(response.status.code), which openapi.json does not allow")
        }
        return try await testCallback(response)
    }
}

extension APIServer {
    /// Runs `test` against this server listening on a port of its own, and stops the server after.
    /// Every answer is checked against the OpenAPI document unless `checkingAnswers` is false.
    func testLive<Value: Sendable>(
        checkingAnswers: Bool = true, _ test: @Sendable (LiveClient) async throws -> Value
    ) async throws -> Value {
        let (listening, announce) = AsyncStream.makeStream(of: URL.self)
        let application = makeApplication { url in
            announce.yield(url)
            announce.finish()
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { announce.finish() }
                try await application.run()
            }
            defer { group.cancelAll() }
            var urls = listening.makeAsyncIterator()
            guard let url = await urls.next() else {
                try Task.checkCancellation()
                try await group.next()  // the server's own error, when it could not start
                throw LiveTestError.serverDidNotStart
            }
            guard let host = url.host, let port = url.port else { throw LiveTestError.serverDidNotStart }
            let client = TestClient(host: host, port: port, configuration: .init(timeout: LiveClient.hangGuard))
            client.connect()
            do {
                let value = try await test(LiveClient(client: client, port: port, checksAnswers: checkingAnswers))
                try await client.shutdown()
                return value
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }
}

enum LiveTestError: Error {
    case serverDidNotStart
}
