import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Next: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "next",
            abstract: "Show the comic after the one shown last (skipping numbers not in the index).",
            discussion: "Examples:\n  xkcd-search show 327 && xkcd-search next")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: PageOptions

        func run() throws {
            try output.print(try global.open().library.step(.next), with: global)
        }
    }

    struct Prev: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prev",
            abstract: "Show the comic before the one shown last (skipping numbers not in the index).",
            discussion: "Examples:\n  xkcd-search show 327 && xkcd-search prev",
            aliases: ["previous"])

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: PageOptions

        func run() throws {
            try output.print(try global.open().library.step(.previous), with: global)
        }
    }

    struct Latest: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "latest", abstract: "Show the latest comic in the index.",
            discussion: "Examples:\n  xkcd-search latest\n  xkcd-search latest --json")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: PageOptions

        func run() throws {
            try output.print(try global.open().library.show(.latest), with: global)
        }
    }

    struct Random: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "random",
            abstract: "Show a comic drawn at random from the index, or from the favourites.",
            discussion: "Examples:\n  xkcd-search random\n  xkcd-search random --tag physics")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Draw among the favourites.")
        var fav = false

        @Option(
            help: ArgumentHelp("Draw among the favourites with this tag.", valueName: "name"), completion: tagCompletion
        )
        var tag: String?

        @OptionGroup var output: PageOptions

        func run() throws {
            let pool: Library.Pool = tag.map { .tagged($0) } ?? (fav ? .favourites : .all)
            try output.print(try global.open().library.random(among: pool), with: global)
        }
    }
}
