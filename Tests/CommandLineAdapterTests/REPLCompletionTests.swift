import Foundation
import Testing
import XKCDREPL
import _XKCDTestSupport

@testable import xkcd_search

/// Tab completion over the command tree the parser describes (``REPLHost/commandTree``), and
/// file names from a real directory.
@Suite("REPL completion of the real commands")
struct REPLCompletionTests {
    /// A completer whose relative paths start in `directory`.
    func completer(in directory: URL) -> Completer {
        var files = FileNames.system
        files.currentDirectory = directory.path
        files.home = directory.path
        return Completer(root: REPLHost.commandTree, library: nil, fileNames: files)
    }

    func complete(_ line: String, in directory: URL = FileManager.default.temporaryDirectory) -> [String] {
        completer(in: directory).completions(for: line, cursor: line.unicodeScalars.count)
    }

    @Test func choicesFollowTheOptionsThatTakeThem() {
        #expect(complete("search bobby --color ") == ["always", "auto", "never"])
        #expect(complete("search --color=n") == ["--color=never"])
        #expect(complete("show 327 --image ") == ["always", "auto", "never"])
        #expect(complete("next --image-format s") == ["sixel", "symbols"])
        #expect(complete("repl --image-format ") == ["auto", "iterm", "kitty", "sixel", "symbols"])
        #expect(complete("search --limit ").isEmpty, "a number: nothing to offer")
    }

    @Test func helpIsOfferedOnceAndNoOptionTwice() {
        func check(_ spec: CommandSpec, path: [String]) {
            let offered = complete((path + ["-"]).joined(separator: " "))
            #expect(offered.filter { $0 == "--help" }.count == 1, "\(path): \(offered)")
            #expect(Set(offered).count == offered.count, "\(path): \(offered)")
            for sub in spec.subcommands { check(sub, path: path + [sub.name]) }
        }
        for command in REPLHost.commandTree.subcommands {
            check(command, path: [command.name])
        }
        #expect(complete("fav r") == ["remove", "rm"])
    }

    @Test func fileNamesFollowDBAndFavImportInARealDirectory() throws {
        let directory = try makeTemporaryDirectory("xkcd-completion")
        defer { try? FileManager.default.removeItem(at: directory) }
        let manager = FileManager.default
        try manager.createDirectory(at: directory.appendingPathComponent("backups"), withIntermediateDirectories: true)
        for name in ["index.sqlite", "favourites.json", "backups/old.json", ".hidden", "two words.json"] {
            #expect(manager.createFile(atPath: directory.appendingPathComponent(name).path, contents: Data()))
        }
        let everything = ["backups/", "favourites.json", "index.sqlite", "two\\ words.json"]
        #expect(complete("stats --db ", in: directory) == everything)
        #expect(complete("search bobby --db i", in: directory) == ["index.sqlite"])
        #expect(complete("fav import ", in: directory) == everything)
        #expect(complete("fav import b", in: directory) == ["backups/"])
        #expect(complete("fav import backups/", in: directory) == ["backups/old.json"])
        #expect(complete("fav import ~/f", in: directory) == ["~/favourites.json"])
        #expect(complete("fav import \(directory.path)/f", in: directory) == ["\(directory.path)/favourites.json"])
        #expect(complete("fav import .h", in: directory) == [".hidden"])
        #expect(complete("stats --db=ind", in: directory) == ["--db=index.sqlite"])
        #expect(complete("fav import favourites.json ", in: directory).isEmpty, "one file only")
    }
}
