import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDFiles
import XKCDKit

extension XKCDSearch {
    struct Relevant: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "relevant",
            abstract: "Find the comics that fit a passage: is there an xkcd for this?",
            discussion: """
                Give a paragraph someone wrote (a situation, a few lines of a discussion) as \
                arguments, or '-' to read it from standard input. The comics are ranked by how well \
                they fit it, each with why: the passage's words it holds, its own text that holds \
                them, the sentence of the passage nearest to it in meaning, whether the passage names \
                its title, and how many other explanations link to it. Up to 64 KB are \
                read; a longer passage is cut at a sentence end, and a line on standard error says so.

                Examples:
                  xkcd-search relevant our build takes twenty minutes so we fight with swords while it compiles
                  pbpaste | xkcd-search relevant -
                  xkcd-search relevant --json - < issue.txt

                Exit status: 0 with results, 1 when nothing is found, 2 for a usage error.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The passage ('-' reads it from standard input); several arguments are joined with spaces.")
        var words: [String]

        @Option(help: "How many comics to show.")
        var limit = defaultLimit

        static let defaultLimit = 5

        @Flag(
            help:
                "Print JSON: words, cutFrom, results: [{num, title, date, score, url, reasons: {words, snippet, sentence, similarity, holdsTitle, linkedFrom}}]."
        )
        var json = false

        func validate() throws {
            guard Search.limits.contains(limit) else {
                throw ValidationError(
                    "--limit must be between \(Search.limits.lowerBound) and \(Search.limits.upperBound)")
            }
        }

        func run() throws {
            if try !Self.findAndPrint(request).found { throw ExitCode(1) }
        }

        /// What the parsed options ask for, in the form the plain reader gives them
        /// (``XKCDSearch/Search/Request/init(plainArguments:command:)``).
        var request: Search.Request {
            Search.Request(
                database: global.db, words: words, color: global.color, limit: limit, json: json,
                verbose: global.verbose)
        }

        /// Returns the engine, whose connection closes when the caller lets it go, and whether
        /// any comic was found.
        static func findAndPrint(_ request: Search.Request) throws -> (engine: SearchEngine, found: Bool) {
            // Standard input is kept to the limit and a little more, and counted whole.
            var text = request.words.joined(separator: " ")
            var byteCount: Int?
            if request.words == ["-"] {
                (text, byteCount) = StandardInput.read(keeping: SearchEngine.maximumPassageLength)
            }
            let engine = try request.openEngine()
            var found = try engine.relevant(to: text, limit: request.limit)
            if found.cutFrom != nil, let byteCount { found.cutFrom = byteCount }
            if let cutNote = found.cutNote { Terminal.printError("note: " + cutNote) }
            if let problem = found.semanticProblem { Terminal.printError(Advice.line(for: problem)) }
            if request.json {
                try JSONOutput.print(RelevantDocument(found))
            } else {
                print(
                    RelevantOutput.text(found, color: Terminal.usesColor(request.color), width: Terminal.width ?? 100),
                    terminator: "")
            }
            return (engine, !found.results.isEmpty)
        }
    }
}
