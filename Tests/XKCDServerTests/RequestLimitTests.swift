import Foundation
import HTTPTypes
import Testing
import XKCDModel
import XKCDServer
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Sends `request` whole to 127.0.0.1:`port` on a connection of its own and reads the answer
/// until the server closes it; nil when the connection fails or the hang guard of 600 s passes.
private func exchange(port: Int, _ request: [UInt8]) async -> String? {
    await offTheTaskPool { exchangeBlocking(port: port, request) }
}

private func exchangeBlocking(port: Int, _ request: [UInt8]) -> String? {
    guard let socket = loopbackSocket(port: port) else { return nil }
    defer { close(socket) }
    var sent = 0
    while sent < request.count {
        let n = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n > 0 else { break }  // the server may stop reading once it has answered
        sent += n
    }
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = recv(socket, &chunk, chunk.count, 0)
        guard n > 0 else { break }
        answer += chunk[..<n]
    }
    return String(decoding: answer, as: UTF8.self)
}

@Suite("HTTP API: request limits answered as JSON")
struct RequestLimitTests {
    private static func request(_ head: String) -> [UInt8] { Array(head.utf8) }

    /// A 1 MB query: 414 with a JSON error (not SwiftNIO's bare 400), and the server serves on.
    @Test func aHugeRequestLineIs414() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive(checkingAnswers: false) { client in
            let port = client.port
            let query = String(repeating: "a", count: 1 << 20)
            let answer = try #require(
                await exchange(
                    port: port, Self.request("GET /api/search?q=\(query) HTTP/1.1\r\nHost: localhost\r\n\r\n")))
            #expect(answer.hasPrefix("HTTP/1.1 414 "), "\(answer.prefix(300))")
            #expect(answer.contains("X-Content-Type-Options: nosniff"))
            #expect(
                answer.hasSuffix(#"{"error":{"code":"too-long","message":"the request line is longer than 8 KB"}}"#),
                "\(answer.prefix(500))")
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok, "still serving") }
        }
    }

    @Test func tooManyHeaderBytesOrALargeBodyAre413() async throws {
        let harness = try await Harness.make()
        try await harness.server.testLive(checkingAnswers: false) { client in
            let port = client.port
            let filler = (0..<100).map { "X-Filler-\($0): \(String(repeating: "b", count: 500))\r\n" }.joined()
            let headers = try #require(
                await exchange(port: port, Self.request("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\(filler)\r\n")))
            #expect(headers.hasPrefix("HTTP/1.1 413 "), "\(headers.prefix(300))")
            #expect(headers.contains(#""code":"too-large""#), "\(headers.prefix(500))")
            let large = String(repeating: " ", count: 100_000)
            let body = try #require(
                await exchange(
                    port: port,
                    Self.request(
                        "PUT /api/favourites/327 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nConnection: close\r\n"
                            + "Content-Length: \(large.utf8.count)\r\n\r\n\(large)")))
            #expect(body.hasPrefix("HTTP/1.1 413 "), "\(body.prefix(300))")
            #expect(body.contains(#""code":"too-large""#), "\(body.prefix(500))")
            // Within the limits, two requests on one connection, the first with a body.
            let two = try #require(
                await exchange(
                    port: port,
                    Self.request(
                        "POST /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello"
                            + "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")))
            #expect(two.hasPrefix("HTTP/1.1 405 "), "\(two.prefix(300))")
            #expect(two.contains("HTTP/1.1 200 OK"), "\(two)")
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok, "still serving") }
        }
    }
}
