import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats", abstract: "Show what the index holds.",
            discussion: "Examples:\n  xkcd-search stats\n  xkcd-search stats --json")

        @OptionGroup var global: GlobalOptions

        @Flag(help: "Print JSON.")
        var json = false

        struct Output: Encodable {
            var comics: Int
            @NullWhenMissing var latest: Int?
            var explained: Int
            var incomplete: Int
            var unexplained: Int
            var favourites: Int
            var tags: Int
            @NullWhenMissing var lastUpdate: String?
            var database: String
            var databaseBytes: Int
            /// Whether searches rank by meaning, the model's identity and how many comics it embedded.
            var semanticSearch: Bool
            @NullWhenMissing var semanticModel: String?
            var embeddedComics: Int
            /// Images kept in the cache, and their size.
            var images: Int
            var imageBytes: Int
            /// Comics whose image could not be fetched within the last hour: not asked for again
            /// until then.
            var imagesMissing: Int
        }

        func run() throws {
            let database = try global.openDatabase(connections: .readOnly)
            let stats = try database.statistics()
            let path = database.path ?? ":memory:"
            let bytes = ["", "-wal"].reduce(0) { total, suffix in
                let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0
                return total + size
            }
            let semantic = try SentenceModel.located().status(of: database)
            let cache = ImageCache(directory: global.paths.imagesDirectory)
            let images = cache.usage()
            global.log("read the counts, the model's status and \(global.paths.imagesDirectory.path)")
            let output = Output(
                comics: stats.comics, latest: stats.latest, explained: stats.explained,
                incomplete: stats.incompleteExplanations, unexplained: stats.comics - stats.explained,
                favourites: stats.favourites, tags: stats.tags, lastUpdate: stats.lastUpdate,
                database: path, databaseBytes: bytes, semanticSearch: semantic.isOn, semanticModel: semantic.model,
                embeddedComics: semantic.embeddedComics, images: images.images, imageBytes: images.bytes,
                imagesMissing: cache.missingCount())
            if json {
                try JSONOutput.print(output)
                return
            }
            print("""
                comics:        \(output.comics) (latest #\(output.latest.map(String.init) ?? "none"))
                explained:     \(output.explained) (\(output.incomplete) incomplete, \(output.unexplained) without one)
                favourites:    \(output.favourites) (\(output.tags) tags)
                by meaning:    \(semantic.problem.map { "off: \($0.reason)" } ?? "on (\(semantic.embeddedComics) of \(output.comics) comics embedded by \(escaped(semantic.model ?? "")))")
                images kept:   \(images.images) (\(Terminal.size(images.bytes)))\(missingImages(output.imagesMissing))
                last update:   \(output.lastUpdate ?? "never")
                database:      \(output.database) (\(Terminal.size(bytes)))
                """)
        }

        private func missingImages(_ count: Int) -> String {
            guard count > 0 else { return "" }
            let comics = count == 1 ? "1 comic's image" : "\(count) comics' images"
            return "; \(comics) could not be fetched lately, asked for again after an hour ('show N -v' says why)"
        }
    }
}
