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

        @OptionGroup var comic: ComicArgument

        @Flag(help: "Print JSON: num, title, related: [{num, title, date, reasons, similarity}].")
        var json = false

        func run() throws {
            let found = try RelatedRequest(comic: comic.comic).run(in: global.open())
            guard json else { return print(global.renderer.related(found)) }
            try JSONOutput.print(RelatedDocument(found))
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
