import Foundation
import Testing
import XKCDKit
import XKCDModel
import XKCDServer
import _XKCDTestSupport

/// A `+` in a query string is a space, as browsers send a form with GET and as Python's
/// `urlencode` and `requests` send parameters; `%2B` is a plus (issue 39). Asked by a real Python
/// client (Tests/Clients/form_encoded.py) over real HTTP, every route that reads a query
/// parameter answers what the library answers for the words with spaces.
@Suite("HTTP API: query strings as clients encode them")
struct FormEncodedQueryTests {
    /// Searches whose words the server must read with spaces: each gives another answer when its
    /// spaces are read as pluses, so a server that reads them so fails the test.
    static let searches = [
        "sql OR password", "mom -sql", "the year:2007", "exploits OR dependency year:2007..2020",
    ]

    @Test func aPythonClientsParametersReachEveryRouteAsMeant() async throws {
        let python = try #require(TestPython.executable, "the tests' Python (make test-venv)")
        let harness = try await Harness.build()
        let engine = SearchEngine(database: harness.database)
        let library = Library(database: harness.database)
        _ = try library.setFavourite(.number(327), tags: ["sql"])

        var cases: [[String: Any]] = Self.searches.enumerated().map { index, words in
            ["name": "search\(index)", "method": "GET", "path": "/api/search", "params": ["q": words, "limit": "50"]]
        }
        cases += [
            ["name": "plus", "method": "GET", "path": "/api/search", "params": ["q": "c++ tables"]],
            ["name": "suggest", "method": "GET", "path": "/api/suggest", "params": ["q": "bobby ta"]],
            ["name": "favourites", "method": "GET", "path": "/api/favourites", "params": ["tag": " sql "]],
            ["name": "comic", "method": "GET", "path": "/api/comics/327", "params": ["explain": " true "]],
            [
                "name": "relevant", "method": "POST", "path": "/api/relevant", "params": ["limit": " 3"],
                "body": ["text": "our school lost its records to a student named after an SQL command"],
            ],
            ["name": "page", "method": "GET", "path": "/search", "params": ["q": "mom -sql"]],
        ]
        let input = try JSONSerialization.data(withJSONObject: cases)
        let printed = try await harness.server.testLive(checkingAnswers: false) { client in
            try await ask(python, "http://127.0.0.1:\(client.port)", input)
        }
        let answers = try #require(try JSONSerialization.jsonObject(with: printed) as? [String: Any], "\(printed)")

        for (index, words) in Self.searches.enumerated() {
            let answer = try #require(answers["search\(index)"] as? [String: Any])
            #expect((answer["address"] as? String)?.contains("+") == true, "spaces sent as +: \(answer)")
            let expected = try engine.search(words, limit: 50)
            let json = answer["json"] as? [String: Any]
            #expect(json?["query"] as? String == words, "\(answer)")
            #expect(json?["total"] as? Int == expected.total, "\(words): \(answer)")
            let numbers = (json?["results"] as? [[String: Any]])?.compactMap { $0["num"] as? Int }
            #expect(numbers == expected.results.map(\.id), "\(words)")
            // The case can fail: the words with pluses are another query (or no query at all).
            let misread = words.replacingOccurrences(of: " ", with: "+")
            let other = try? engine.search(misread, limit: 50)
            #expect(other?.results.map(\.id) != expected.results.map(\.id), "\(words) tells + from a space")
        }

        let plus = try #require(answers["plus"] as? [String: Any])
        #expect((plus["address"] as? String)?.contains("c%2B%2B+tables") == true, "\(plus)")
        #expect((plus["json"] as? [String: Any])?["query"] as? String == "c++ tables", "\(plus)")

        let suggest = try #require(answers["suggest"] as? [String: Any])
        let suggestions = try library.suggestions(for: "bobby ta")
        #expect((suggest["json"] as? [String: Any])?["query"] as? String == "bobby ta", "\(suggest)")
        #expect((suggest["json"] as? [String: Any])?["suggestions"] as? [String] == suggestions, "\(suggest)")
        let misreadSuggestions = try library.suggestions(for: "bobby+ta")
        #expect(!suggestions.isEmpty && suggestions != misreadSuggestions)

        let favourites = try #require(answers["favourites"] as? [String: Any])
        #expect(favourites["status"] as? Int == 200, "\(favourites)")
        #expect(((favourites["json"] as? [[String: Any]])?.compactMap { $0["num"] as? Int }) == [327], "\(favourites)")

        // ` true ` is not a flag's value: read with its spaces, it is refused as such.
        let comic = try #require(answers["comic"] as? [String: Any])
        #expect(comic["status"] as? Int == 400, "\(comic)")
        let comicError = (comic["json"] as? [String: Any])?["error"] as? [String: Any]
        #expect((comicError?["message"] as? String)?.contains("' true '") == true, "\(comic)")

        let relevant = try #require(answers["relevant"] as? [String: Any])
        let relevantError = (relevant["json"] as? [String: Any])?["error"] as? [String: Any]
        #expect(relevant["status"] as? Int == 400 && (relevantError?["message"] as? String)?.contains("' 3'") == true)

        // The page's own form sent with GET and no JavaScript: the same comics, in the same order.
        let page = try #require(answers["page"] as? [String: Any])
        let html = page["text"] as? String ?? ""
        #expect(page["status"] as? Int == 200 && html.contains("<title>mom -sql"), "\(page)")
        let listed = html.components(separatedBy: "<li").dropFirst().compactMap { item in
            item.firstMatch(of: /href="\/(\d+)"/).flatMap { Int($0.1) }
        }
        #expect(Array(listed.prefix(3)) == Array(try engine.search("mom -sql").results.map(\.id).prefix(3)))
    }

    /// Runs the Python client with the cases of `input` (JSON) and gives what it printed.
    private func ask(_ python: URL, _ base: String, _ input: Data) async throws -> Data {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Clients/form_encoded.py")
        return try await offTheTaskPool { try TestPython.output(of: python, [script.path, base], input: input) }
    }
}
