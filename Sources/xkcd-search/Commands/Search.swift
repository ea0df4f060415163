import ArgumentParser
import Foundation
import XKCDKit

extension XKCDSearch {
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Search the index.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "What to look for.")
        var words: [String]

        @Option(help: "Results per page.")
        var limit = 10

        func run() throws {
            let database = try global.openDatabase()
            let hits = try database.comics(matchingAllOf: words, limit: limit)
            for hit in hits {
                print("#\(hit.id)  \(sanitized(hit.title))  (\(hit.date))")
            }
        }
    }
}
