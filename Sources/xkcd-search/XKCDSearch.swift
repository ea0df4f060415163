import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDKit

/// The root command. Every command spells out its `commandName`: deriving it from the type name
/// costs a scan of every protocol conformance in the binary per command, which took about a
/// millisecond of every search.
@main
struct XKCDSearch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xkcd-search",
        abstract: "Full-text search for xkcd comics, offline once indexed.",
        discussion: """
            Comics: Randall Munroe, https://xkcd.com, CC BY-NC 2.5.
            Explanations: the explain xkcd wiki, https://www.explainxkcd.com, CC BY-SA 3.0.
            """,
        version: "0.1.0",
        subcommands: [Index.self, Search.self, Stats.self, Show.self, Explain.self, Next.self, Prev.self, Latest.self, Random.self, Link.self, Open.self, Fav.self, About.self, Repl.self]
    )
}
