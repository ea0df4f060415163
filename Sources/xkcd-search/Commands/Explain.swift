import ArgumentParser
import Foundation
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

        @Argument(
            help: ArgumentHelp(
                "327, #327, latest or random (default: the comic shown last).", valueName: "comic"),
            completion: comicCompletion)
        var comic: String?

        @Flag(
            help: "Print JSON: num, title, explanation, trivia, incomplete (null without an explanation), explainUrl.")
        var json = false

        func run() throws {
            let reference = try comic.map { try ComicReference(parsing: $0) }
            let library = try global.openLibrary()
            guard json else {
                let page = try library.explain(reference)
                Pager.start(unless: global.noPager)
                return print(global.renderer.explanation(page))
            }
            try JSONOutput.print(ExplanationDocument(page: try library.show(reference)))
        }
    }
}
