import Foundation
import Testing
import _XKCDTestSupport

/// `relevant` and `search -` through the binary, on the fixture index with the real model.
@Suite("passages: relevant, search from standard input")
struct RelevantCommandTests {
    /// A situation written for #2347 (Dependency): it names neither Nebraska, nor a block, a
    /// tower or dependency, words its title, transcript and explanation are known by.
    static let situation = """
        Our whole company runs on a tiny parsing library that one volunteer has looked after \
        in his spare time for fifteen years. Nobody here has ever thanked him, and if he quits, \
        everything we ship breaks.
        """

    @Test func aPassageFromAPipeOrAsArgumentsFindsTheComicThatFits() async throws {
        try await withBrowseSandbox { sandbox in
            let piped = try await sandbox.cli.run(
                ["relevant", "-", "--db", sandbox.db], stdin: Data(Self.situation.utf8))
            #expect(piped.status == 0, "\(piped)")
            #expect(piped.stderr.isEmpty, "\(piped)")
            #expect(piped.stdoutLines.first?.hasPrefix("#2347  Dependency") == true, "\(piped)")
            #expect(piped.stdout.contains("words: "), "\(piped)")

            let typed = try await sandbox.run("relevant", Self.situation)
            #expect(typed.status == 0, "\(typed)")
            #expect(typed.stdout == piped.stdout)
        }
    }

    @Test func relevantJSONSaysWhyEachComicFits() async throws {
        try await withBrowseSandbox { sandbox in
            let page = try await sandbox.json("relevant", "--json", "--limit", "3", Self.situation)
            let words = try #require(page["words"] as? [String])
            #expect(!words.isEmpty && words.allSatisfy { Self.situation.lowercased().contains($0) }, "\(words)")
            #expect(page.keys.contains("cutFrom") && page["cutFrom"] is NSNull, "\(page)")
            // How sure the first is, in words, from the first comic's score, lead and cosine.
            let confidence = try #require(page["confidence"] as? String, "\(page)")
            #expect(["fits well", "might fit", "a long shot"].contains(confidence), "\(page)")
            let results = try #require(page["results"] as? [[String: Any]])
            #expect(results.count == 3, "\(page)")
            let first = try #require(results.first)
            #expect(first["num"] as? Int == 2347, "\(page)")
            #expect(first["url"] as? String == "https://xkcd.com/2347/")
            let reasons = try #require(first["reasons"] as? [String: Any])
            let held = try #require(reasons["words"] as? [String])
            #expect(Set(held).isSubset(of: words), "\(reasons)")
            #expect((reasons["snippet"] as? String)?.isEmpty == false, "\(reasons)")
            // How near the passage it is in meaning; the passage's sentence nearest to it only when
            // sentences are embedded one by one (not by default).
            let similarity = try #require(reasons["similarity"] as? Double, "\(reasons)")
            #expect(similarity > 0 && similarity <= 1)
            #expect(reasons.keys.contains("sentence"))
            // The situation names neither #2347's title nor is #2347 linked from another explanation.
            #expect(reasons["holdsTitle"] as? Bool == false && reasons["linkedFrom"] as? Int == 0, "\(reasons)")
            // No passage linked to anything in this index.
            #expect(reasons["linkedPassageSimilarity"] is NSNull, "\(reasons)")
            #expect(reasons["writtenSituationSimilarity"] is NSNull, "\(reasons)")
            #expect(reasons["writtenSituation"] is NSNull, "\(reasons)")
        }
    }

    /// `index --linked-passages` makes a file's passages the index's own and embeds them; a
    /// passage near one of them lifts the comic it was linked to, and says so. A file that is no
    /// such file stops the run with one line before anything is done.
    @Test func linkedPassagesFromAFileLiftTheirComics() async throws {
        try await withBrowseSandbox { sandbox in
            let file = sandbox.directory.appendingPathComponent("linked.tsv")
            try """
            query\trelevant\tkind\tnote\tsource
            The deploy script fails without a word whenever the disk fills up, and nobody notices for weeks.\t1116\tsituation\t1116: Traffic Lights\thttps://example.org/thread/1
            Every spreadsheet at the office breaks when someone types a date in the American order.\t1190\twritten\t\tsnapshot/written-situations.tsv

            """.write(to: file, atomically: true, encoding: .utf8)
            let broken = sandbox.directory.appendingPathComponent("broken.tsv")
            try "passage\tcomic\nsomething\t1116\n".write(to: broken, atomically: true, encoding: .utf8)
            // An index run that embeds, as `make demo` runs it.
            let indexing = try BinaryRunner(sandbox: sandbox.directory, embeds: true)
            let refused = try await indexing.run([
                "index", "--db", sandbox.db, "--mirror", Fixtures.corpusURL.path, "--linked-passages", broken.path,
            ])
            expectFailure(
                refused,
                "the file of linked passages can't be used: its first line does not name the columns query, relevant and source"
            )
            #expect(try sqliteLines(sandbox.db, "SELECT count(*) FROM linkedPassage") == ["0"])
            #expect(try await sandbox.json("stats", "--json")["linkedPassages"] as? Int == 0)

            let indexed = try await indexing.run([
                "index", "--db", sandbox.db, "--mirror", Fixtures.corpusURL.path, "--linked-passages", file.path,
            ])
            #expect(indexed.status == 0, "\(indexed)")
            #expect(indexed.stdout.contains("1 linked passage and 1 written situation embedded"), "\(indexed)")
            let counts = try await sandbox.json("stats", "--json")
            #expect(counts["linkedPassages"] as? Int == 1 && counts["writtenSituations"] as? Int == 1, "\(counts)")
            let stats = try await sandbox.run("stats")
            #expect(
                stats.stdoutLines.contains(
                    "linked:        1 passage people linked comics to, which relevant learns from"))
            #expect(
                stats.stdoutLines.contains("situations:    1 written for the comics, which relevant learns from too"))
            let page = try await sandbox.json(
                "relevant", "--json",
                "Our deploy script fails silently each time the disk is full, and for weeks nobody notices.")
            let first = try #require((page["results"] as? [[String: Any]])?.first, "\(page)")
            #expect(first["num"] as? Int == 1116, "\(page)")
            let reasons = try #require(first["reasons"] as? [String: Any])
            let similarity = try #require(reasons["linkedPassageSimilarity"] as? Double, "\(reasons)")
            #expect(similarity > 0.6 && similarity <= 1, "\(reasons)")
            let text = try await sandbox.run(
                "relevant", "Our deploy script fails silently each time the disk is full, and for weeks nobody notices."
            )
            #expect(text.stdout.contains("someone linked it to a passage like this one"), "\(text)")
            // A passage like the situation written for #1190 finds it, and says it was written.
            let written = try await sandbox.json(
                "relevant", "--json",
                "Each of our spreadsheets falls apart whenever a colleague enters dates month first.")
            let lifted = try #require((written["results"] as? [[String: Any]])?.first, "\(written)")
            #expect(lifted["num"] as? Int == 1190, "\(written)")
            let why = try #require(lifted["reasons"] as? [String: Any])
            #expect((why["writtenSituationSimilarity"] as? Double ?? 0) > 0.6, "\(why)")
            #expect(
                why["writtenSituation"] as? String
                    == "Every spreadsheet at the office breaks when someone types a date in the American order.",
                "\(why)")
            #expect(why["linkedPassageSimilarity"] is NSNull, "\(why)")
        }
    }

    /// The two lifts besides words and meaning are reasons too: a passage that names #2207's
    /// title (Math Work), and #2, to which two of the fixture explanations link.
    @Test func relevantSaysWhenThePassageNamesTheTitleAndHowOftenTheComicIsLinked() async throws {
        try await withBrowseSandbox { sandbox in
            let passage = "A quick pencil sketch of some small trees, and the math work for how tall they grow."
            let page = try await sandbox.json("relevant", "--json", "--limit", "20", passage)
            let results = try #require(page["results"] as? [[String: Any]])
            func reasons(_ number: Int) throws -> [String: Any] {
                let result = try #require(results.first { $0["num"] as? Int == number }, "#\(number): \(page)")
                return try #require(result["reasons"] as? [String: Any])
            }
            #expect(try reasons(2207)["holdsTitle"] as? Bool == true)
            #expect(try reasons(2)["holdsTitle"] as? Bool == false && reasons(2)["linkedFrom"] as? Int == 2)

            let text = try await sandbox.run("relevant", "--limit", "20", passage)
            #expect(text.status == 0, "\(text)")
            #expect(text.stdout.contains("the passage names its title"), "\(text)")
            #expect(text.stdout.contains("linked from 2 other explanations"), "\(text)")
        }
    }

    /// Past 64 KB the passage is cut at a sentence end, and one line says so.
    @Test func aPassageOverTheLimitIsCutAtASentenceEndWithOneLineSaid() async throws {
        try await withBrowseSandbox { sandbox in
            let sentence = "The password rules at work want a digit, a capital and a symbol, so I write it on a note. "
            let passage = String(repeating: sentence, count: 70 * 1024 / sentence.utf8.count + 1)
            let output = try await sandbox.cli.run(
                ["relevant", "-", "--json", "--db", sandbox.db], stdin: Data(passage.utf8))
            #expect(output.status == 0, "\(output)")
            #expect(output.stderrLines.count == 1, "\(output)")
            #expect(
                output.stderr.contains("the passage has \(passage.utf8.count) bytes, over the limit of 65536"),
                "\(output)")
            let page = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            #expect(page["cutFrom"] as? Int == passage.utf8.count, "\(page)")
            #expect((page["results"] as? [[String: Any]])?.first?["num"] as? Int == 936, "\(output.stdout.prefix(300))")
        }
    }

    @Test func anEmptyPassageIsAOneLineError() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.cli.run(["relevant", "-", "--db", sandbox.db], stdin: Data("  \n\n".utf8))
            expectFailure(output, "the passage has no word that any comic holds")
        }
    }

    @Test func searchReadsItsQueryFromStandardInput() async throws {
        try await withBrowseSandbox { sandbox in
            for arguments in [["search", "-"], ["search", "--stdin"], ["search", "--json", "--stdin"]] {
                let output = try await sandbox.cli.run(
                    arguments + ["--db", sandbox.db], stdin: Data("bobby\ntables\n".utf8))
                #expect(output.status == 0, "\(arguments): \(output)")
                #expect(output.stdout.hasPrefix(arguments.contains("--json") ? "{" : "#327"), "\(arguments): \(output)")
            }
            let both = try await sandbox.cli.run(
                ["search", "--stdin", "bobby", "--db", sandbox.db], stdin: Data("tables".utf8))
            #expect(both.status == 2 && both.stderr.contains("not both"), "\(both)")
            let long = try await sandbox.cli.run(
                ["search", "-", "--db", sandbox.db], stdin: Data(String(repeating: "word ", count: 2000).utf8))
            expectFailure(long, "the query is too long (10000 bytes; the limit is 4096 bytes)")
        }
    }

    /// A passage typed as a search (20 words or more) is ranked as `relevant` ranks it, even with
    /// a parenthesis the query language would refuse: the same comics in the same order.
    @Test func aPassageGivenToSearchIsRankedAsAPassage() async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.run("search", "--json", Self.situation + " (and nobody pays him:")
            #expect(output.status == 0, "\(output)")
            let page = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            let results = try #require(page["results"] as? [[String: Any]])
            #expect(results.first?["num"] as? Int == 2347, "\(output.stdout.prefix(400))")
            // Twenty words, the least that is a passage: search and relevant agree.
            let twenty = Self.situation.split(separator: " ").prefix(20).joined(separator: " ")
            let searched = try await sandbox.json("search", "--json", "--limit", "5", twenty)
            let related = try await sandbox.json("relevant", "--json", "--limit", "5", twenty)
            let numbers = { (page: [String: Any]) in
                (page["results"] as? [[String: Any]])?.compactMap { $0["num"] as? Int }
            }
            #expect(
                numbers(searched) == numbers(related) && numbers(searched)?.isEmpty == false, "\(searched) \(related)")
            // Fewer words keep the query language: the parenthesis is an error.
            let short = try await sandbox.run("search", "nobody pays him)")
            expectFailure(short, "')'")
        }
    }

    /// A paragraph pasted at the line editor's prompt, in a real pseudo-terminal, arrives as
    /// several lines at once: it is ranked as one passage, not searched line by line.
    @Test(.enabled(if: REPLCommandTests.hasPexpect)) func theREPLTakesAMultiLinePasteAsOnePassage() async throws {
        try await withBrowseSandbox { sandbox in
            let state = sandbox.directory.appendingPathComponent("state")
            let lines = Self.situation.split(separator: ". ").joined(separator: ".\r")
            let script = #"""
                import os, sys, pexpect
                binary, db, state, paste = sys.argv[1:5]
                env = dict(os.environ, XDG_STATE_HOME=state, TERM="xterm", NO_COLOR="1", LANG="C.UTF-8")
                p = pexpect.spawn(binary, ["repl", "--db", db, "--image", "never"], env=env, encoding="utf-8", timeout=600, dimensions=(40, 200))
                p.expect_exact("xkcd> ")
                p.send(paste + "\r")                   # one write, as a terminal pastes
                p.expect_exact("xkcd> ")
                print("OUTPUT<<" + p.before + ">>")
                p.send(":quit\r")
                p.expect(pexpect.EOF); p.close()
                print("exit", p.exitstatus)
                """#
            let result = try await REPLCommandTests.runPython(
                script, arguments: [sandbox.cli.executable.path, sandbox.db, state.path, lines])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.hasSuffix("exit 0\n"), "\(result.output)")
            // One ranking, with the comic that fits first and the reasons `relevant` gives.
            let ranked = result.output.components(separatedBy: "#2347  Dependency")
            #expect(ranked.count == 2, "ranked once, #2347 in it: \(result.output)")
            #expect(result.output.contains("words: "), "\(result.output)")
            let history = try String(contentsOf: state.appendingPathComponent("xkcd-search/history"), encoding: .utf8)
            #expect(
                history.split(separator: "\n").count == 3,
                "the paste is one line of the history, then :quit: \(history)")
        }
    }

    @Test func theREPLRanksAPastedParagraph() async throws {
        try await withBrowseSandbox { sandbox in
            // Apostrophes and a quote, which the REPL's word splitting would read as quoting.
            let line = ":relevant It's the \"volunteer\" again: " + Self.situation + "\n"
            let output = try await sandbox.cli.run(["repl", "--db", sandbox.db], stdin: Data(line.utf8))
            #expect(output.status == 0, "\(output)")
            #expect(output.stdoutLines.first?.hasPrefix("#2347  Dependency") == true, "\(output)")
        }
    }
}
