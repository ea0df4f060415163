import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDFiles
import XKCDKit

extension XKCDSearch {
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats", abstract: "Show what the index holds.",
            discussion: "Examples:\n  xkcd-search stats\n  xkcd-search stats --json")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            let output = try StatsRequest().run(in: global.open())
            global.log("read the counts, the model's status and \(global.paths.imagesDirectory.path)")
            if json {
                try JSONOutput.print(output)
                return
            }
            print(
                """
                comics:        \(output.comics) (latest #\(output.latest.map(String.init) ?? "none"))
                explained:     \(output.explained) (\(output.incomplete) incomplete, \(output.unexplained) without one)
                favourites:    \(output.favourites) (\(output.tags) tags)
                by meaning:    \(output.semanticProblem.map { "off: \($0.reason)" } ?? "on (\(output.embeddedComics) of \(output.comics) comics embedded by \(escaped(output.semanticModel ?? "")))")
                linked:        \(output.linkedPassages) passage\(output.linkedPassages == 1 ? "" : "s") people linked comics to, which relevant learns from
                situations:    \(output.writtenSituations) written for the comics, which relevant learns from too
                images kept:   \(output.images) (\(Terminal.size(output.imageBytes)))\(missingImages(output.imagesMissing))
                last update:   \(output.lastUpdate ?? "never")
                database:      \(output.database) (\(Terminal.size(output.databaseBytes)))
                """)
        }

        private func missingImages(_ count: Int) -> String {
            guard count > 0 else { return "" }
            let comics = count == 1 ? "1 comic's image" : "\(count) comics' images"
            return "; \(comics) could not be fetched lately, asked for again after an hour ('show N -v' says why)"
        }
    }
}
