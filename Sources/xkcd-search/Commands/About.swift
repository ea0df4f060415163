import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDFiles
import XKCDKit

extension XKCDSearch {
    struct About: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "about",
            abstract: "Where the comics and explanations come from, and their licences.",
            discussion:
                "Examples:\n  xkcd-search about\n  xkcd-search about -v   # also logs where the files are\n  xkcd-search about --json"
        )

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON: version, sources [{name, content, by, url, licence, licenceUrl}], snapshot, licence.")
        var json = false

        func run() throws {
            let paths = global.paths
            global.log("index: \(paths.databasePath)")
            global.log("comic shown last and REPL history: \(paths.stateDirectory.path)")
            global.log("images and raw responses: \(paths.cacheDirectory.path)")
            global.log("sentence model: \(global.makeServices().model.directory?.path ?? "none found")")
            if json { return try JSONOutput.print(AboutDocument(version: XKCDSearch.configuration.version)) }
            print(
                """
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
