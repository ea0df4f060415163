import Foundation
import Testing
import _XKCDTestSupport

@Suite("fav commands through the binary")
struct FavouriteCommandTests {
    @Test func addTagListUntagRemove() async throws {
        try await withBrowseSandbox { sandbox in
            let add = try await sandbox.run("fav", "add", "327", "SQL", " bobby ")
            #expect(add.status == 0, "\(add)")
            #expect(add.stdout == "added #327 Exploits of a Mom to the favourites (tagged sql, bobby)\n")
            let again = try await sandbox.run("fav", "add", "#327", "sql")
            #expect(again.status == 0, "\(again)")
            #expect(again.stdout == "#327 Exploits of a Mom was already a favourite\n")
            #expect(try await sandbox.run("fav", "add", "149").status == 0)
            #expect(try await sandbox.run("fav", "tag", "149", "sudo", "classic").stdout == "tagged sudo, classic\n")

            let list = try await sandbox.run("fav", "list")
            #expect(
                list.stdoutLines == [
                    "#149  Sandwich  (2006-08-28)  [classic, sudo]",
                    "#327  Exploits of a Mom  (2007-10-10)  [bobby, sql]",
                ], "\(list)")
            #expect(try await sandbox.run("fav", "list", "--tag", "SQL").stdoutLines.count == 1)
            #expect(try await sandbox.run("fav", "list", "--tag", "nope").stdout == "no favourite is tagged 'nope'\n")

            let tags = try await sandbox.run("fav", "tags")
            #expect(tags.stdoutLines == ["bobby    1", "classic  1", "sql      1", "sudo     1"], "\(tags)")

            #expect(try await sandbox.run("fav", "untag", "327", "bobby", "nope").stdout == "untagged bobby\n")
            #expect(
                try await sandbox.run("fav", "remove", "149").stdout == "removed #149 Sandwich from the favourites\n")
            expectFailure(try await sandbox.run("fav", "remove", "149"), "#149 is not a favourite")
            #expect(
                try await sandbox.run("fav", "list").stdoutLines == ["#327  Exploits of a Mom  (2007-10-10)  [sql]"])
            // `show` says a comic is a favourite, with its tags.
            #expect(try await sandbox.run("show", "327").stdout.contains("yes (tags: sql)"))
        }
    }

    @Test func listAndTagsJSONHoldTheDocumentedKeys() async throws {
        try await withBrowseSandbox { sandbox in
            _ = try await sandbox.run("fav", "add", "327", "sql")
            let list = try await sandbox.run("fav", "list", "--json")
            let entries = try #require(
                try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            #expect(entries.count == 1)
            for key in ["num", "title", "date", "added", "tags", "url"] {
                #expect(entries[0][key] != nil, "no \(key) in \(list)")
            }
            #expect(entries[0]["tags"] as? [String] == ["sql"])
            let tags = try await sandbox.run("fav", "tags", "--json")
            let counts = try #require(
                try JSONSerialization.jsonObject(with: Data(tags.stdout.utf8)) as? [[String: Any]])
            #expect(counts.first?["tag"] as? String == "sql")
            #expect(counts.first?["count"] as? Int == 1)
            #expect(try await sandbox.json("stats", "--json")["favourites"] as? Int == 1)
        }
    }

    @Test(arguments: [
        (["fav", "add", "500"], "#500 is not in the index"),
        (["fav", "add", "404"], "#404 does not exist: xkcd skipped it on purpose"),
        (["fav", "add", "4000"], "#4000 does not exist yet: the latest is #3282"),
        (["fav", "add", "abc"], "'abc' is not a comic number"),
        (["fav", "add", "0"], "#0 does not exist"),
        (
            ["fav", "add", "327", "foo bar"],
            "'foo bar' is not a valid tag: use one word of letters, digits, '-' and '_'"
        ),
        (["fav", "add", "327", "ok", "no!"], "'no!' is not a valid tag"),
        (["fav", "tag", "327", "x"], "#327 is not a favourite"),
        (["fav", "untag", "327", "x"], "#327 is not a favourite"),
        (["fav", "remove", "327"], "#327 is not a favourite"),
        (["fav", "import", "/nonexistent/fav.json"], "cannot read /nonexistent/fav.json: no such file"),
    ])
    func badFavouriteRequestsFailInOneLineAndChangeNothing(_ arguments: [String], _ message: String) async throws {
        try await withBrowseSandbox { sandbox in
            let output = try await sandbox.cli.run(arguments + ["--db", sandbox.db])
            expectFailure(output, message)
            #expect(try await sandbox.run("fav", "list").stdout == "no favourites yet\n")
        }
    }

    @Test func exportImportRoundTrip() async throws {
        try await withBrowseSandbox { sandbox in
            _ = try await sandbox.run("fav", "add", "327", "sql", "bobby")
            _ = try await sandbox.run("fav", "add", "149")
            let file = sandbox.directory.appendingPathComponent("favourites.json").path
            let export = try await sandbox.run("fav", "export", file)
            #expect(export.stdout == "exported 2 favourites to \(file)\n", "\(export)")
            let stdout = try await sandbox.run("fav", "export")
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(stdout.stdout.utf8)) as? [String: Any])
            #expect(document["format"] as? String == "xkcd-search favourites")
            #expect(document["version"] as? Int == 1)
            #expect(document["exported"] is String)
            let entries = try #require(document["favourites"] as? [[String: Any]])
            #expect(entries.map { $0["num"] as? Int } == [149, 327])
            #expect(Set(entries[1].keys) == ["num", "title", "added", "tags"])

            try await withTemporaryDirectory { other in
                let copy = try await FixtureIndex.copy(into: other)
                let cli = try BinaryRunner(sandbox: other)
                let first = try await cli.run(["fav", "import", file, "--db", copy])
                #expect(first.stdout == "added 2 favourites and 2 tags (#149, #327)\n", "\(first)")
                let second = try await cli.run(["fav", "import", file, "--db", copy])
                #expect(second.stdout == "nothing new: all 2 favourites were here already\n", "\(second)")
                let list = try await cli.run(["fav", "list", "--db", copy])
                #expect(list.stdout == (try await sandbox.run("fav", "list")).stdout)
                // The added dates travel with the favourites.
                let mine = try await cli.run(["fav", "list", "--json", "--db", copy]).stdout
                #expect(mine == (try await sandbox.run("fav", "list", "--json")).stdout)
            }
        }
    }

    @Test func aMalformedImportChangesNothingAndSaysWhatIsWrong() async throws {
        try await withBrowseSandbox { sandbox in
            _ = try await sandbox.run("fav", "add", "327", "sql")
            let before = try await sandbox.run("fav", "list", "--json").stdout
            let file = sandbox.directory.appendingPathComponent("bad.json")
            try #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 149}, {"num": "x"}]}"#
                .write(to: file, atomically: true, encoding: .utf8)
            expectFailure(
                try await sandbox.run("fav", "import", file.path),
                "\(file.path) is not a favourites export, so nothing was imported: favourites[1].num should be a number"
            )
            try "hello".write(to: file, atomically: true, encoding: .utf8)
            expectFailure(try await sandbox.run("fav", "import", file.path), "it is not valid JSON")
            #expect(try await sandbox.run("fav", "list", "--json").stdout == before)
        }
    }

    /// The shipped snapshot is loaded with `index --mirror DIR --rebuild`: favourites stay.
    @Test func favouritesSurviveReindexAndSnapshotReload() async throws {
        try await withBrowseSandbox { sandbox in
            _ = try await sandbox.run("fav", "add", "327", "sql")
            _ = try await sandbox.run("fav", "add", "2347", "deps")
            let before = try await sandbox.run("fav", "list", "--json").stdout
            let reindex = try await sandbox.run("index", "--mirror", Fixtures.corpusURL.path)
            #expect(reindex.status == 0, "\(reindex)")
            #expect(try await sandbox.run("fav", "list", "--json").stdout == before)
            let reload = try await sandbox.run("index", "--mirror", Fixtures.corpusURL.path, "--rebuild")
            #expect(reload.status == 0, "\(reload)")
            #expect(try await sandbox.run("fav", "list", "--json").stdout == before)
            #expect(try await sandbox.run("fav", "tags").stdoutLines == ["deps  1", "sql   1"])
        }
    }
}
