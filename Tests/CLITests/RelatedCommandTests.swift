import Foundation
import Testing
import _XKCDTestSupport

/// `related` and descriptions typed as sentences, through the built binary on the fixture index.
@Suite("related and sentences through the binary")
struct RelatedCommandTests {
    struct Related: Decodable {
        struct Entry: Decodable {
            var num: Int
            var title: String
            var date: String
            var reasons: [String]
            var similarity: Double?
        }
        var num: Int
        var title: String
        var related: [Entry]

        /// The comics related by links, leaving out those related by meaning alone.
        var linked: [Entry] { related.filter { $0.reasons != ["similar"] } }
    }

    /// The lines of `related`'s text output that name links: the heading, and each comic linked
    /// one way or both, without the similarity that the comic may also have.
    static func linkLines(_ output: BinaryRunner.Output) -> [String] {
        output.stdoutLines.filter { !$0.hasSuffix("]") || !$0.contains("  [similar ") }.map { line in
            line.replacing(/, similar [0-9.]+\]$/, with: "]")
        }
    }

    @Test func relatedListsTheFiveComicsNearestInMeaning() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("related", "2347", "--json")
            #expect(output.status == 0, "\(output)")
            let json = try JSONDecoder().decode(Related.self, from: Data(output.stdout.utf8))
            let similar = json.related.filter { $0.reasons.contains("similar") }
            #expect(similar.count == 5, "\(output)")
            #expect(similar.allSatisfy { ($0.similarity ?? 0) > 0 && ($0.similarity ?? 0) <= 1 && $0.num != 2347 })
            let alone = similar.filter { $0.reasons == ["similar"] }.compactMap(\.similarity)
            #expect(alone == alone.sorted(by: >), "most similar first")
            let text = try await sandbox.run("related", "2347")
            #expect(text.stdoutLines.filter { $0.contains("similar 0.") }.count == 5, "\(text)")
        }
    }

    @Test func relatedListsLinksBothWaysWithTheirReasons() async throws {
        try await withBrowseSandbox { sandbox in
            let text = try await sandbox.run("related", "327", environment: ["NO_COLOR": ""])
            #expect(text.status == 0, "\(text)")
            #expect(
                Self.linkLines(text) == [
                    "#327  Exploits of a Mom  (2007-10-10)", "  #10  Pi Equals  (2006-01-01)  [links to, linked from]",
                ])
            let output = try await sandbox.run("related", "#2841", "--json")
            #expect(output.status == 0, "\(output)")
            let json = try JSONDecoder().decode(Related.self, from: Data(output.stdout.utf8))
            #expect(json.num == 2841 && json.title == "Sign Combo")
            #expect(json.linked.map(\.num) == [1116])
            #expect(json.linked.first?.reasons.first == "links to")
            #expect(json.linked.first?.title == "Traffic Lights" && json.linked.first?.date == "2012-10-03")
            // Without a number: the comic shown last.
            _ = try await sandbox.run("show", "1116")
            let back = try await sandbox.run("related", "--json")
            let linked = try JSONDecoder().decode(Related.self, from: Data(back.stdout.utf8))
            #expect(linked.num == 1116 && linked.linked.map(\.num) == [2841])
            #expect(linked.linked.first?.reasons.first == "linked from")
            let none = try await sandbox.run("related", "149")
            #expect(Self.linkLines(none) == ["#149  Sandwich  (2006-08-28)"], "\(none)")
        }
    }

    @Test func relatedOfABadComicFailsWithOneLine() async throws {
        try await withBrowseSandbox { sandbox in
            expectFailure(try await sandbox.run("related", "nope"), "'nope' is not a comic number")
            expectFailure(try await sandbox.run("related", "99999"), "#99999 does not exist yet")
        }
    }

    @Test func relatedInTheREPLIsAboutTheComicShownLast() async throws {
        try await withBrowseSandbox { sandbox in
            let result = try await sandbox.cli.run(["repl", "--db", sandbox.db], stdin: Data("1608\nrelated\n".utf8))
            #expect(result.status == 0, "\(result)")
            let lines = Self.linkLines(result)
            let heading = try #require(lines.lastIndex(of: "#1608  Hoverboard  (2015-11-24)"), "\(result)")
            // Both linked both ways; #1663 is also among the nearest in meaning, so it comes first.
            #expect(
                Array(lines[(heading + 1)...]) == [
                    "  #1663  Garden  (2016-04-04)  [links to, linked from]",
                    "  #1611  Baking Soda and Vinegar  (2015-12-02)  [links to, linked from]",
                ], "\(result)")
        }
    }

    /// Turns an index back into what the version before `v8-comic-links` made.
    static let beforeLinks = """
        DROP TABLE comicLink; DROP TABLE comicVector; DROP TABLE imageHash; DROP TABLE linkedPassage; DROP TRIGGER comicInsertRaisesLinkedPassagesVersion; DROP TRIGGER comicDeleteRaisesLinkedPassagesVersion;
        DELETE FROM grdb_migrations
        WHERE identifier IN ('v8-comic-links', 'v9-comic-vectors', 'v10-symbol-words', 'v11-image-hashes',
            'v12-image-part-hashes', 'v13-vectors-version', 'v14-spelling-first-and-third', 'v15-links-version', 'v16-linked-passages', 'v17-linked-passages-version', 'v18-written-situations');
        """

    /// An index made before links were kept gets them on the next run of `index`, with no requests.
    @Test func anOlderIndexGetsItsLinksOnTheNextIndexRun() async throws {
        try await withBrowseSandbox { sandbox in
            // What the version before v8-comic-links left: no links table, no such migration (and
            // none of the later ones).
            let older = try await runTool(["sqlite3", sandbox.db, Self.beforeLinks])
            #expect(older.status == 0, "\(older.output)")
            let before = try await sandbox.run("related", "327")
            #expect(before.stdoutLines.last == "  no related comics found", "\(before)")
            let index = try await sandbox.run("index", "--mirror", Fixtures.corpusURL.path)
            #expect(index.status == 0, "\(index)")
            #expect(index.stderr.contains("parsing the 31 stored explanations again"), "\(index)")
            let after = try await sandbox.run("related", "327")
            #expect(Self.linkLines(after).last == "  #10  Pi Equals  (2006-01-01)  [links to, linked from]", "\(after)")
            // Once: the next run has nothing to parse again.
            let again = try await sandbox.run("index", "--mirror", Fixtures.corpusURL.path)
            #expect(again.status == 0 && !again.stderr.contains("again"), "\(again)")
        }
    }

    /// The same over HTTP: the explanations are parsed again from the kept responses, and the run
    /// asks the server for what an ordinary run asks, nothing more.
    @Test func anOlderIndexGetsItsLinksFromTheKeptResponses() async throws {
        try await withTemporaryDirectory { directory in
            let server = FixtureServer(latest: 472)
            let base = try await server.start()
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let index = ["index", "--db", db, "--xkcd-url", base.absoluteString, "--explain-url", base.absoluteString]
            let first = try await cli.run(index)
            #expect(first.status == 0, "\(first)")
            let older = try await runTool(["sqlite3", db, Self.beforeLinks])
            #expect(older.status == 0, "\(older.output)")

            let start = server.requestLog.count
            let upgrade = try await cli.run(index)
            #expect(upgrade.status == 0 && upgrade.stderr.contains("parsing the"), "\(upgrade)")
            let upgradeRequests = server.requestLog.count - start
            let ordinary = try await cli.run(index)
            #expect(ordinary.status == 0 && !ordinary.stderr.contains("again"), "\(ordinary)")
            #expect(upgradeRequests == server.requestLog.count - start - upgradeRequests)
            await server.stop()

            let related = try await cli.run(["related", "327", "--json", "--db", db])
            let json = try JSONDecoder().decode(Related.self, from: Data(related.stdout.utf8))
            #expect(json.linked.map(\.num) == [10], "\(related)")
        }
    }

    @Test func sentencesSearchThroughTheBinary() async throws {
        try await withBrowseSandbox { sandbox in
            let stray = try await sandbox.run("search", #"the one where the mom says "little bobby tables we call him"#)
            #expect(stray.status == 0, "\(stray)")
            #expect(stray.stdoutLines.first?.hasPrefix("#327") == true, "\(stray)")
            let address = try await sandbox.run("search", "https://www.explainxkcd.com/wiki/index.php/149:_Sandwich")
            #expect(address.stdoutLines.first?.hasPrefix("#149") == true, "\(address)")
            let contraction = try await sandbox.run("search", "isnt")
            #expect(contraction.status == 0 && !contraction.stdout.contains("showing results for"), "\(contraction)")
            expectFailure(try await sandbox.run("search", #"bobby "tables"#), "unclosed quote starting at column 7")
        }
    }
}
