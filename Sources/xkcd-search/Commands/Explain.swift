import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "explain",
            abstract: "Show the explain xkcd explanation of a comic, its trivia and the wiki link.", discussion: "Examples:\n  xkcd-search explain 327\n  xkcd-search explain            # the comic shown last\n  xkcd-search explain 1190 --json")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp(
            "327, #327, latest or random (default: the comic shown last).", valueName: "comic"), completion: comicCompletion)
        var comic: String?

        @Flag(help: "Print JSON: num, title, explanation, trivia, incomplete (null without an explanation), explainUrl.")
        var json = false

        struct Output: Encodable {
            var num: Int
            var title: String
            @NullWhenMissing var explanation: String?
            @NullWhenMissing var trivia: String?
            @NullWhenMissing var incomplete: Bool?
            var explainUrl: String
        }

        func run() throws {
            let reference = try comic.map { try ComicReference(parsing: $0) }
            let library = try global.openLibrary()
            guard json else {
                let page = try library.explain(reference)
                Pager.start(unless: global.noPager)
                return print(global.renderer.explanation(page))
            }
            // A script asking about a comic without an explanation gets nulls, not an error.
            let page = try library.show(reference)
            let explained = page.explanation.map(\.page).flatMap { $0.explanation.isEmpty ? nil : $0 }
            try JSONOutput.print(Output(
                num: page.comic.id, title: page.comic.title, explanation: explained?.explanation,
                trivia: explained?.trivia, incomplete: explained?.isIncomplete, explainUrl: page.comic.explainURL))
        }
    }
}
