import Foundation
import Testing
import _XKCDTestSupport

/// What a command reads and writes when its input or output is not what it expects: a
/// directory or a closed descriptor as standard input, a full device as standard output, a file
/// to export to that is the index, a link or a pipe. One line says what went wrong; nothing stops
/// with a Swift trap, and nothing is written over what the user did not name.
@Suite("standard input, standard output and the files a command writes")
struct StandardStreamTests {
    /// The executable run by `/bin/sh` with `redirection` after it (`< /`, `<&-`, `> /dev/full`).
    static func redirected(_ redirection: String) -> [String] {
        ["/bin/sh", "-c", "exec \"$@\" \(redirection)", "sh"]
    }

    @Test func unreadableStandardInputIsOneLine() async throws {
        try await withBrowseSandbox { sandbox in
            for (redirection, reason) in [("< /", "it is a directory"), ("<&-", "it is closed")] {
                for command in [
                    ["relevant", "-"], ["search", "-"], ["search", "--stdin"], ["fav", "import", "-"],
                ] {
                    let output = try await sandbox.cli.run(
                        command + ["--db", sandbox.db], wrapper: Self.redirected(redirection))
                    expectFailure(output, "Error: cannot read standard input: \(reason)")
                    #expect(output.status == 1, "\(command) \(redirection): \(output)")
                }
                let identify = try await sandbox.cli.run(
                    ["identify", "-", "--db", sandbox.db], wrapper: Self.redirected(redirection))
                expectFailure(identify, "Error: cannot read standard input: \(reason)")
                #expect(identify.status == 2, "a usage error, as a missing image file: \(identify)")
            }
            let directory = try await sandbox.cli.run(["identify", sandbox.directory.path, "--db", sandbox.db])
            expectFailure(directory, "Error: cannot read \(sandbox.directory.path): it is a directory")
            #expect(directory.status == 2, "\(directory)")
        }
    }

    /// As GNU tools do: output that could not be written is an error, said on standard error.
    @Test func outputThatCannotBeWrittenIsAnError() async throws {
        try await withBrowseSandbox { sandbox in
            let image = Fixtures.imagesURL.appendingPathComponent("exploits_of_a_mom.png").path
            for (command, stdin) in [
                (["search", "bobby"], ""), (["show", "327", "--image", "never"], ""), (["link", "327"], ""),
                (["stats"], ""), (["stats", "--json"], ""), (["fav", "export"], ""),
                (["relevant", "a mother names her son after a database attack"], ""), (["identify", image], ""),
                (["repl"], "link 327\n"),
            ] {
                let output = try await sandbox.cli.run(
                    command + ["--db", sandbox.db], stdin: Data(stdin.utf8), wrapper: Self.redirected("> /dev/full"))
                #expect(output.status == 1, "\(command): \(output)")
                #expect(
                    output.stderrLines == ["Error: cannot write standard output: no space left on device"],
                    "\(command): \(output)")
            }
            let written = try await sandbox.cli.run(["link", "327", "--db", sandbox.db])
            #expect(written.status == 0 && written.stderr.isEmpty, "\(written)")
        }
    }

    /// A byte-order mark, as Windows editors write one, is not part of what was typed.
    @Test func aByteOrderMarkIsNoPartOfTheInput() async throws {
        try await withBrowseSandbox { sandbox in
            let mark = Data([0xEF, 0xBB, 0xBF])
            let repl = try await sandbox.cli.run(["repl", "--db", sandbox.db], stdin: mark + Data("link 327\n".utf8))
            #expect(repl.stdout == "xkcd #327: Exploits of a Mom https://xkcd.com/327/\n", "\(repl)")
            let plain = try await sandbox.cli.run(
                ["search", "-", "--json", "--db", sandbox.db], stdin: Data("title:mom".utf8))
            let marked = try await sandbox.cli.run(
                ["search", "-", "--json", "--db", sandbox.db], stdin: mark + Data("title:mom".utf8))
            #expect(plain.status == 0 && marked.stdout == plain.stdout, "\(plain)\n\(marked)")
        }
    }

    @Test func anEmptyFileNameIsAUsageError() async throws {
        try await withBrowseSandbox { sandbox in
            for (command, message) in [
                (
                    ["fav", "export", ""],
                    "Error: fav export needs a file name, or '-' (or nothing) for standard output"
                ),
                (["fav", "import", ""], "Error: fav import needs a file, or '-' for standard input"),
                (["identify", ""], "Error: identify needs an image file, or '-' for standard input"),
            ] {
                let output = try await sandbox.cli.run(command + ["--db", sandbox.db])
                #expect(output.status == 2 && output.stderrLines.first == message, "\(command): \(output)")
            }
        }
    }

    @Test func favExportNeverWritesOverTheIndexAndWritesThroughALink() async throws {
        try await withBrowseSandbox { sandbox in
            let cli = sandbox.cli
            let db = sandbox.db
            #expect(try await cli.run(["fav", "add", "327", "sql", "--db", db]).status == 0)
            let indexBytes = try Data(contentsOf: URL(fileURLWithPath: db))
            let hardLink = sandbox.directory.appendingPathComponent("same-index.sqlite").path
            try FileManager.default.linkItem(atPath: db, toPath: hardLink)
            for target in [db, hardLink] {
                expectFailure(
                    try await cli.run(["fav", "export", target, "--db", db]),
                    "Error: cannot write \(target): it is the index")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == indexBytes, "the index is untouched")
            let stats = try await cli.run(["stats", "--db", db])
            #expect(stats.status == 0 && stats.stdout.contains("favourites:    1"), "\(stats)")

            let real = sandbox.directory.appendingPathComponent("real.json")
            let link = sandbox.directory.appendingPathComponent("link.json")
            try Data("{}".utf8).write(to: real)
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.json")
            let exported = try await cli.run(["fav", "export", link.path, "--db", db])
            #expect(exported.stdout == "exported 1 favourite to \(link.path)\n", "\(exported)")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.json")
            #expect(try String(contentsOf: real, encoding: .utf8).contains("\"num\" : 327"), "the link's file")
            // A link to a file not written yet: the file is made where the link leads.
            let dangling = sandbox.directory.appendingPathComponent("dangling.json")
            try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: "later.json")
            #expect(try await cli.run(["fav", "export", dangling.path, "--db", db]).status == 0)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling.path) == "later.json")
            #expect(FileManager.default.fileExists(atPath: sandbox.directory.appendingPathComponent("later.json").path))

            expectFailure(
                try await cli.run(["fav", "export", sandbox.directory.path, "--db", db]),
                "Error: cannot write \(sandbox.directory.path): it is a directory")
            let missing = sandbox.directory.appendingPathComponent("no-such/favourites.json").path
            expectFailure(
                try await cli.run(["fav", "export", missing, "--db", db]),
                "Error: cannot write \(missing): its directory does not exist")
        }
    }
}
