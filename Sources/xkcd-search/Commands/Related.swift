import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Related: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "related",
            abstract: "List the comics related to a comic, and why.",
            discussion: """
                The comics its explain xkcd explanation links to ('links to'), those whose \
                explanations link to it ('linked from'), and the five nearest to it in meaning \
                ('similar', with the cosine similarity of their sentence vectors); linked both \
                ways first.

                Examples:
                  xkcd-search related 327
                  xkcd-search related --json
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: ArgumentHelp(
            "327, #327, latest or random (default: the comic shown last).", valueName: "comic"), completion: comicCompletion)
        var comic: String?

        @Flag(help: "Print JSON: num, title, related: [{num, title, date, reasons, similarity}].")
        var json = false

        struct Output: Encodable {
            struct Entry: Encodable {
                var num: Int
                var title: String
                var date: String
                var reasons: [String]
                /// For a comic related by "similar": the cosine similarity of the two comics' vectors.
                @NullWhenMissing var similarity: Double?
            }
            var num: Int
            var title: String
            var related: [Entry]
        }

        func run() throws {
            let reference = try comic.map { try ComicReference(parsing: $0) }
            let found = try global.openLibrary().related(reference)
            guard json else { return print(global.renderer.related(found)) }
            try JSONOutput.print(Output(
                num: found.comic.id, title: found.comic.title,
                related: found.related.map {
                    .init(
                        num: $0.id, title: $0.title, date: $0.date.description, reasons: $0.reasons.map(\.rawValue),
                        similarity: $0.similarity.map { ($0 * 1000).rounded() / 1000 })
                }))
        }
    }
}

extension Renderer {
    /// `#327  Exploits of a Mom  (2007-10-10)`, then one line per related comic with its reasons.
    func related(_ found: RelatedComics) -> String {
        guard !found.related.isEmpty else { return heading(found.comic) + "\n  no related comics found" }
        let lines = found.related.map { comic in
            let reasons = comic.reasons.map { reason in
                reason == .similar ? String(format: "similar %.2f", comic.similarity ?? 0) : reason.rawValue
            }
            return "  #\(comic.id)  \(sanitized(comic.title))  (\(comic.date))  [\(reasons.joined(separator: ", "))]"
        }
        return ([heading(found.comic)] + lines).joined(separator: "\n")
    }
}
