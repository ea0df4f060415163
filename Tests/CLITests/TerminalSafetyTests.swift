import Foundation
import Testing
import _XKCDTestSupport

/// Nothing a file, a server or the user typed reaches the terminal raw: errors, logs and JSON.
@Suite("nothing raw on the terminal")
struct TerminalSafetyTests {
    /// Bytes a terminal acts on: C0 controls but the line feed, DEL, C1 controls (UTF-8 C2 80-9F)
    /// and the bidi marks, overrides and isolates.
    static func controls(in text: String) -> [String] {
        text.unicodeScalars.compactMap { scalar in
            switch scalar.value {
            case 0x0A: nil
            case 0x00..<0x20, 0x7F..<0xA0, 0x061C, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069:
                String(format: "U+%04X", scalar.value)
            default: nil
            }
        }
    }

    static let hostile = "\u{1B}]0;pwned\u{7}\u{1B}[2J\u{0}\u{202E}\u{9B}31m"

    func importFile(_ sandbox: BrowseSandbox, _ json: String) async throws -> BinaryRunner.Output {
        let file = sandbox.directory.appendingPathComponent("favourites.json")
        try Data(json.utf8).write(to: file)
        return try await sandbox.run("fav", "import", file.path)
    }

    static func jsonString(_ text: String) -> String {
        String(
            decoding: try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]), as: UTF8.self
        )
        .dropFirst().dropLast().description
    }

    @Test func importErrorsQuoteAndEscapeWhatTheFileSays() async throws {
        try await withBrowseSandbox { sandbox in
            let tag = Self.jsonString(Self.hostile + "\nsecond line")
            for json in [
                #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 327, "tags": [\#(tag)]}]}"#,
                #"{"format": \#(tag), "version": 1, "favourites": []}"#,
            ] {
                let result = try await importFile(sandbox, json)
                #expect(result.status != 0, "\(result)")
                #expect(result.stderrLines.count == 1, "\(result)")
                #expect(
                    Self.controls(in: result.stderr).isEmpty, "\(Self.controls(in: result.stderr)) in \(result.stderr)")
                #expect(
                    result.stderr.contains(#"'\u{1b}]0;pwned\u{7}\u{1b}[2J\u{0}\u{202e}\u{9b}31m\nsecond line'"#),
                    "\(result)")
            }
            let argument = try await sandbox.run("fav", "add", "327", Self.hostile)
            #expect(argument.status != 0 && argument.stderrLines.count == 1, "\(argument)")
            #expect(Self.controls(in: argument.stderr).isEmpty, "\(argument.stderr)")
            let repl = try await sandbox.cli.run(
                ["repl", "--db", sandbox.db], stdin: Data("327\nfav add 327 \(Self.hostile)\n".utf8))
            #expect(
                Self.controls(in: repl.stderr).isEmpty && repl.stderr.contains("is not a valid tag"), "\(repl.stderr)")
        }
    }

    @Test func aHugeTagIsRefusedAtOnceInAShortMessage() async throws {
        try await withBrowseSandbox { sandbox in
            let tag = String(repeating: "a", count: 50 << 20)
            let result = try await importFile(
                sandbox,
                #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 327, "tags": ["\#(tag)"]}]}"#
            )
            #expect(result.status != 0 && result.stderrLines.count == 1, "\(result.stderr.prefix(300))")
            // Short whatever the length of the temporary directory's path the message names.
            let message = result.stderr.replacingOccurrences(of: sandbox.directory.path, with: "")
            #expect(message.utf8.count < 300, "\(result.stderr.prefix(300))")
            #expect(result.stderr.contains("is longer than 40 characters"))
        }
    }

    /// A server's text in `index -v`'s log and in the summary; comic text in `search --json`.
    @Test func serverTextInLogsAndDataInJSONAreEscaped() async throws {
        try await withTemporaryDirectory { directory in
            let server = FixtureServer(latest: 1190)
            let base = try await server.start()
            let error = #"{"error":{"code":"internal_api_error","info":\#(Self.jsonString(Self.hostile))}}"#
            server.setFault(.body(Data(error.utf8)), forPath: FixtureServer.explainPath(10))
            var sandwich =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: Fixtures.corpusURL.appendingPathComponent("xkcd/149/info.0.json")))
                as! [String: Any]
            sandwich["title"] = "Sand\u{9B}wich \u{202E}tfel"
            server.setFault(
                .body(try JSONSerialization.data(withJSONObject: sandwich)), forPath: FixtureServer.comicPath(149))
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let index = try await cli.run(
                ["index", "-v", "--db", db, "--xkcd-url", base.absoluteString, "--explain-url", base.absoluteString])
            #expect(index.status == 3, "\(index)")
            #expect(index.stderr.contains("internal_api_error"), "\(index)")
            #expect(
                Self.controls(in: index.stderr + index.stdout).isEmpty,
                "\(Self.controls(in: index.stderr + index.stdout))")

            let search = try await cli.run(["search", "--json", "sandwich", "--db", db])
            #expect(Self.controls(in: search.stdout).isEmpty, "\(Self.controls(in: search.stdout))")
            #expect(search.stdout.contains(#"Sand\u009bwich \u202etfel"#), "\(search.stdout)")
            let decoded = try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [String: Any]
            let title = (decoded?["results"] as? [[String: Any]])?.first?["title"] as? String
            #expect(title == "Sand\u{9B}wich \u{202E}tfel", "the JSON still says what the comic says")
            let show = try await cli.run(["show", "149", "--json", "--db", db])
            #expect(Self.controls(in: show.stdout).isEmpty && show.stdout.contains(#"\u009b"#), "\(show.stdout)")
            await server.stop()
        }
    }

    /// Bidi marks (U+200F, U+200E, U+061C) from a server's comic and explanation reach no output
    /// of any command, in text or JSON.
    @Test func bidiMarksFromTheServerReachNoOutput() async throws {
        try await withTemporaryDirectory { directory in
            let server = FixtureServer(latest: 1190)
            let base = try await server.start()
            let marks = "\u{200F}\u{200E}\u{061C}"
            var sandwich =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: Fixtures.corpusURL.appendingPathComponent("xkcd/149/info.0.json")))
                as! [String: Any]
            for key in ["title", "safe_title", "alt", "transcript"] {
                sandwich[key] = "\(marks)\((sandwich[key] as? String) ?? "")\(marks) sandwich"
            }
            server.setFault(
                .body(try JSONSerialization.data(withJSONObject: sandwich)), forPath: FixtureServer.comicPath(149))
            let explained = try String(
                contentsOf: Fixtures.corpusURL.appendingPathComponent("explainxkcd/api/149.json"), encoding: .utf8
            )
            .replacingOccurrences(of: "Sandwich", with: "Sand\\u200fwich\\u200e")
            server.setFault(.body(Data(explained.utf8)), forPath: FixtureServer.explainPath(149))
            let cli = try BinaryRunner(sandbox: directory)
            let db = directory.appendingPathComponent("index.sqlite").path
            let index = try await cli.run(
                [
                    "index", "--db", db, "--xkcd-url", base.absoluteString, "--explain-url", base.absoluteString,
                    "--no-embed",
                ])
            #expect(index.status == 0, "\(index)")
            #expect(
                Self.controls(in: index.stderr + index.stdout).isEmpty,
                "\(Self.controls(in: index.stderr + index.stdout))")
            await server.stop()
            let tagged = try await cli.run(["fav", "add", "149", "lunch", "--db", db])
            #expect(tagged.status == 0, "\(tagged)")
            for arguments in [
                ["search", "sandwich"], ["search", "sandwich", "--json"], ["search", "sudo"],
                ["show", "149", "--image", "never"],
                ["show", "149", "--json"], ["explain", "149"], ["related", "149"], ["related", "149", "--json"],
                ["link", "149"], ["fav", "list"], ["fav", "export"],
            ] {
                let result = try await cli.run(arguments + ["--db", db])
                #expect(result.stdout.contains("149") || result.stdout.contains("andwich"), "\(arguments): \(result)")
                #expect(
                    Self.controls(in: result.stdout + result.stderr).isEmpty,
                    "\(arguments): \(Self.controls(in: result.stdout + result.stderr))")
            }
            let repl = try await cli.run(
                ["repl", "--db", db], stdin: Data("search sandwich\n149\ne\nrelated\nfav list\n".utf8))
            #expect(repl.stdout.contains("#149"), "\(repl)")
            #expect(
                Self.controls(in: repl.stdout + repl.stderr).isEmpty, "\(Self.controls(in: repl.stdout + repl.stderr))")
        }
    }
}
