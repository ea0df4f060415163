import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a comic: title text, image, links, transcript and categories.",
            discussion: """
                The comic shown is remembered, so that 'next' and 'prev' step from it. The \
                transcript is xkcd's own, or explain xkcd's when xkcd has none or it is richer.

                Examples:
                  xkcd-search show 327
                  xkcd-search show latest --explain
                  xkcd-search show 1133 --image-size 120x400
                  xkcd-search show 327 --json
                """)

        @OptionGroup var global: GlobalOptions

        @OptionGroup var comic: ComicArgument

        @OptionGroup var output: PageOptions

        func run() throws {
            let request = try ComicRequest(comic: comic.comic)
            try output.print(try request.run(in: global.open()), with: global)
        }
    }
}
