import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct About: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "about",
            abstract: "Where the comics and explanations come from, and their licences.",
            discussion: "Examples:\n  xkcd-search about\n  xkcd-search about -v   # also logs where the files are\n  xkcd-search about --json")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON: version, sources [{name, content, by, url, licence, licenceUrl}], snapshot, licence.")
        var json = false

        struct Source: Encodable {
            var name: String
            var content: String
            var by: String
            var url: String
            var licence: String
            var licenceUrl: String
        }

        struct Snapshot: Encodable {
            var xkcdLatest: Int
            var xkcdDate: String
            var explainLatest: Int
            var explainDate: String
        }

        struct Output: Encodable {
            var version: String
            var sources: [Source]
            var snapshot: Snapshot
            var licence: String
        }

        static let output = Output(
            version: XKCDSearch.configuration.version,
            sources: [
                Source(
                    name: "xkcd", content: "titles, title text, images, transcripts", by: "Randall Munroe",
                    url: "https://xkcd.com", licence: "CC BY-NC 2.5", licenceUrl: "https://xkcd.com/license.html"),
                Source(
                    name: "explain xkcd", content: "explanations, transcripts, trivia and categories",
                    by: "the explain xkcd wiki and its contributors", url: "https://www.explainxkcd.com",
                    licence: "CC BY-SA 3.0", licenceUrl: "https://creativecommons.org/licenses/by-sa/3.0/"),
            ],
            snapshot: Snapshot(xkcdLatest: 3282, xkcdDate: "2026-08-08", explainLatest: 3174, explainDate: "2025-11-29"),
            licence: "MIT")

        func run() throws {
            let paths = global.paths
            global.log("index: \(paths.databasePath)")
            global.log("comic shown last and REPL history: \(paths.stateDirectory.path)")
            global.log("images and raw responses: \(paths.cacheDirectory.path)")
            global.log("sentence model: \(SentenceModel.located().directory?.path ?? "none found")")
            if json { return try JSONOutput.print(Self.output) }
            print("""
                xkcd-search \(XKCDSearch.configuration.version): full-text search for xkcd comics, offline once indexed.

                Comics (titles, title text, images, transcripts)
                  xkcd by Randall Munroe, https://xkcd.com
                  licence: CC BY-NC 2.5 (Creative Commons Attribution-NonCommercial 2.5),
                  https://xkcd.com/license.html
                Explanations, transcripts, trivia and categories
                  the explain xkcd wiki and its contributors, https://www.explainxkcd.com
                  licence: CC BY-SA 3.0 (Creative Commons Attribution-ShareAlike 3.0),
                  https://creativecommons.org/licenses/by-sa/3.0/
                Shipped snapshot
                  xkcd through #3282, 2026-08-08; explain xkcd revisions up to 2025-11-29
                  (through #3174). See snapshot/README.md.
                xkcd-search itself
                  licence: MIT
                """)
        }
    }
}
