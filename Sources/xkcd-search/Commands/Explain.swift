import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "explain",
            abstract: "Show the explain xkcd explanation of a comic, its trivia and the wiki link.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp(
            "327, #327, latest or random (default: the comic shown last).", valueName: "comic"))
        var comic: String?

        @Flag(help: "Print JSON: num, title, explanation, trivia, incomplete, explainUrl.")
        var json = false

        struct Output: Encodable {
            var num: Int
            var title: String
            var explanation: String
            var trivia: String
            var incomplete: Bool
            var explainUrl: String
        }

        func run() throws {
            let reference = try comic.map { try ComicReference(parsing: $0) }
            let library = try global.openLibrary()
            let page = try library.explain(reference)
            guard json, let explanation = page.explanation else {
                return print(Renderer.standard.explanation(page))
            }
            try printJSON(Output(
                num: page.comic.id, title: page.comic.title, explanation: explanation.page.explanation,
                trivia: explanation.page.trivia, incomplete: explanation.page.isIncomplete,
                explainUrl: page.comic.explainURL))
        }
    }
}
