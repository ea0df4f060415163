import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "explain",
            abstract: "Show the explain xkcd explanation of a comic, its trivia and the wiki link.",
            discussion:
                "Examples:\n  xkcd-search explain 327\n  xkcd-search explain            # the comic shown last\n  xkcd-search explain 1190 --json"
        )

        @OptionGroup var global: GlobalOptions

        @OptionGroup var comic: ComicArgument

        @Flag(
            help: "Print JSON: num, title, explanation, trivia, incomplete (null without an explanation), explainUrl.")
        var json = false

        func run() throws {
            let reference = try comic.reference()
            let library = try global.open().library
            guard json else {
                let page = try library.explain(reference)
                Pager.start(unless: global.noPager)
                return print(global.renderer.explanation(page))
            }
            try JSONOutput.print(ExplanationDocument(page: try library.show(reference)))
        }
    }
}
