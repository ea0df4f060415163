import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Testing
import XKCDServer
import _XKCDTestSupport

/// The API's OpenAPI document as the repository holds it (the server compiles it in).
let openAPIDocumentURL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Sources/XKCDServer/Resources/openapi.json")

/// Tests/check-openapi.py, run by the tests' Python (`make test-venv`).
private let checkerScript = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("check-openapi.py")

/// Checks every answer the route tests receive against the OpenAPI document, through one
/// `check-openapi.py exchanges` process for the whole run: an exchange a line in, a verdict a line
/// out. Without the tests' Python it checks nothing; ``OpenAPITests`` fails then, once.
actor OpenAPIChecker {
    static let shared = OpenAPIChecker()

    private var process: Process?
    private var input: FileHandle?
    private var output: FileHandle?
    private var pending = Data()

    /// "ok", or what of the answer the document does not allow; nil without the tests' Python.
    func verdict(
        method: HTTPRequest.Method, uri: String, response: LiveResponse
    ) throws -> String? {
        guard let python = TestPython.executable else { return nil }
        let components = URLComponents(string: uri)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var headers: [String: String] = [:]
        for field in response.headers { headers[field.name.canonicalName] = field.value }
        let exchange: [String: Any] = [
            "method": method.rawValue, "path": components?.percentEncodedPath ?? uri, "query": query,
            "status": Int(response.status.code), "headers": headers,
            "body": Data(response.body.readableBytesView).base64EncodedString(),
        ]
        try start(python)
        input!.write(try JSONSerialization.data(withJSONObject: exchange) + Data("\n".utf8))
        return readLine() ?? "check-openapi.py stopped: \(process!.terminationStatus)"
    }

    private func start(_ python: URL) throws {
        guard process == nil else { return }
        let process = Process()
        process.executableURL = python
        process.arguments = [checkerScript.path, "exchanges", openAPIDocumentURL.path]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
    }

    /// The next line the checker prints; nil once it has exited. A verdict follows every exchange
    /// (the checker answers even an exchange it cannot read), so this waits for no guessed time.
    private func readLine() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending = Data(pending[pending.index(after: newline)...])
                return line
            }
            let more = output!.availableData
            if more.isEmpty { return nil }
            pending.append(more)
        }
    }
}

/// The document is OpenAPI 3.1 and is what `/api/openapi.json` serves; the route tests check
/// their answers against it (``LiveClient``).
@Suite("HTTP API: the OpenAPI document")
struct OpenAPITests {
    @Test func theServedDocumentIsValidOpenAPI() async throws {
        guard let python = TestPython.executable else {
            Issue.record("the tests' Python is missing (\(TestPython.environment.path)): run make test-venv")
            return
        }
        let written = try Data(contentsOf: openAPIDocumentURL)
        let served = try await Harness.make().server.testLive { client in
            try await client.execute(uri: "/api/openapi.json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                return Data(response.body.readableBytesView)
            }
        }
        #expect(served == written, "the server serves openapi.json as written")
        #expect(try run(python, [checkerScript.path, "document"], input: served) == "ok\n")
    }

    /// The checker is not a checker that passes everything: an answer with a key the document
    /// does not name, a wrong type, a status it does not list, and a route it does not name
    /// answered with something else than its Error.
    @Test(arguments: [
        ("/api/suggest", 200, #"{"query":"b","suggestions":["bobby"],"extra":1}"#),
        ("/api/suggest", 200, #"{"query":"b","suggestions":[1]}"#),
        ("/api/search", 418, #"{"error":{"code":"teapot","message":"no"}}"#),
        ("/api/nothing", 404, #"{"message":"no"}"#),
    ])
    func answersTheDocumentDoesNotAllowAreFound(path: String, status: Int, body: String) throws {
        guard let python = TestPython.executable else { return }  // theServedDocumentIsValidOpenAPI says so
        let exchange = try JSONSerialization.data(
            withJSONObject: [
                "method": "GET", "path": path, "query": [:] as [String: String], "status": status,
                "headers": ["content-type": "application/json; charset=utf-8"],
                "body": Data(body.utf8).base64EncodedString(),
            ] as [String: Any])
        let verdict = try run(
            python, [checkerScript.path, "exchanges", openAPIDocumentURL.path], input: exchange + Data("\n".utf8))
        #expect(
            verdict != "ok\n" && verdict.hasSuffix("\n") && !verdict.dropLast().contains("\n"), "one line: \(verdict)")
    }

    /// Runs `python arguments` with `input` on its standard input, and gives what it printed.
    private func run(_ python: URL, _ arguments: [String], input: Data) throws -> String {
        String(decoding: try TestPython.output(of: python, arguments, input: input), as: UTF8.self)
    }
}
