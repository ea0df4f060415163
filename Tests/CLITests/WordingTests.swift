import Foundation
import Testing
import _XKCDTestSupport

/// Messages a user reads: counts in the singular, sizes, tags in columns, and no advice meant
/// for the source tree.
@Suite("wording")
struct WordingTests {
    @Test func oneFavouriteAndOneTagAreSingular() async throws {
        try await withBrowseSandbox { sandbox in
            let file = sandbox.directory.appendingPathComponent("one.json")
            try Data(
                #"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 327, "tags": ["sql"]}]}"#
                    .utf8
            )
            .write(to: file)
            let output = try await sandbox.run("fav", "import", file.path)
            #expect(output.status == 0 && output.stdout == "added 1 favourite and 1 tag (#327)\n", "\(output)")
        }
    }

    @Test func aFileNamingAComicTheIndexLacksIsRefusedAsFavAddRefusesIt() async throws {
        try await withBrowseSandbox { sandbox in
            let file = sandbox.directory.appendingPathComponent("far.json")
            try Data(#"{"format": "xkcd-search favourites", "version": 1, "favourites": [{"num": 99999}]}"#.utf8).write(
                to: file)
            let add = try await sandbox.run("fav", "add", "99999")
            let imported = try await sandbox.run("fav", "import", file.path)
            #expect(add.status == 1 && imported.status == 1, "\(add)\n\(imported)")
            #expect(
                imported.stderrLines == [
                    "Error: nothing was imported from \(file.path): favourites[0]: #99999 does not exist yet: the latest is #3282"
                ], "\(imported)")
            #expect(try await sandbox.run("fav", "list").stdout == "no favourites yet\n")
        }
    }

    /// A favourite whose comic the index no longer holds (an index built again from less)
    /// is removed by number alone, with no gap where the title was.
    @Test func removingAFavouriteWhoseComicIsGoneSaysItsNumber() async throws {
        try await withBrowseSandbox { sandbox in
            #expect(try await sandbox.run("fav", "add", "3282").status == 0)
            let deleted = try await runTool(["sqlite3", sandbox.db, "DELETE FROM comic WHERE id = 3282"])
            try #require(deleted.status == 0, "\(deleted.output)")
            let output = try await sandbox.run("fav", "remove", "3282")
            #expect(output.status == 0 && output.stdout == "removed #3282 from the favourites\n", "\(output)")
        }
    }

    @Test func noImagesIsZeroBytes() async throws {
        try await withBrowseSandbox { sandbox in
            let stats = try await sandbox.run("stats")
            #expect(stats.stdoutLines.contains("images kept:   0 (0 bytes)"), "\(stats)")
            #expect(!stats.stdout.contains("Zero"), "\(stats)")
        }
    }

    /// Tags line up in the columns a terminal gives them: a CJK character takes two.
    @Test func wideTagsLineUp() async throws {
        try await withBrowseSandbox { sandbox in
            #expect(try await sandbox.run("fav", "add", "327", "数据库", "sql").status == 0)
            let output = try await sandbox.run("fav", "tags")
            #expect(output.stdoutLines == ["sql     1", "数据库  1"], "\(output)")
        }
    }

    /// An installed user is told what to set, not to run `make`; no brackets inside brackets.
    @Test func aMissingModelIsSaidPlainly() async throws {
        try await withBrowseSandbox { sandbox in
            let stats = try await sandbox.run("stats", environment: ["XKCD_SEARCH_MODEL": "/nonexistent/model"])
            let line = try #require(stats.stdoutLines.first { $0.hasPrefix("by meaning:") }, "\(stats)")
            #expect(!line.contains("make") && !line.contains("(") && !line.contains("`"), "\(line)")
        }
    }

    /// A model this user may not read is reported as such, not as missing or damaged. The tests
    /// run as root, whom modes do not stop: the search runs as `nobody` (`setpriv`).
    @Test func anUnreadableModelSaysPermissionDenied() async throws {
        try await withBrowseSandbox { sandbox in
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: sandbox.directory.path)
            let model = sandbox.directory.appendingPathComponent("model")
            try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: model.path)
            let wrapper = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
            let output = try await sandbox.cli.run(
                ["search", "the one where the neural net learned the wrong thing", "--db", sandbox.db],
                environment: ["XKCD_SEARCH_MODEL": model.path], wrapper: wrapper)
            #expect(
                output.stderr.contains("cannot read the sentence-embedding model at \(model.path) (permission denied)"),
                "\(output)")
        }
    }
}
