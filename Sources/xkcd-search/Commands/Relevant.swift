import ArgumentParser
import FoundationEssentials
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
        var limit = RelevantRequest.defaultLimit

        @Flag(
            help:
                "Print JSON: words, cutFrom, results: [{num, title, date, score, url, reasons: {words, snippet, sentence, similarity, holdsTitle, linkedFrom, linkedPassageSimilarity, writtenSituationSimilarity, writtenSituation}}]."
        )
        var json = false

        func validate() throws {
            // The request's own rules, worded with the options' names.
            do throws(RequestError) {
                _ = try RelevantRequest(passage: "-", limit: limit)
            } catch {
                throw ValidationError(Advice.commandLineWords(for: error))
            }
        }

        func run() throws {
            if try !Self.findAndPrint(invocation).found { throw ExitCode(1) }
        }

        /// What the parsed options ask for, in the form the plain reader gives them
        /// (``XKCDSearch/Search/Invocation/init(plainArguments:command:)``).
        var invocation: Search.Invocation {
            Search.Invocation(
                database: global.db, words: words, color: global.color, limit: limit, json: json,
                verbose: global.verbose)
        }

        /// Returns the index, whose connection closes when the caller lets it go, and whether
        /// any comic was found.
        static func findAndPrint(_ invocation: Search.Invocation) throws -> (index: OpenIndex, found: Bool) {
            // Standard input is kept to the limit and a little more, and counted whole.
            var text = invocation.words.joined(separator: " ")
            var byteCount: Int?
            if invocation.words == ["-"] {
                (text, byteCount) = try InputReading.standardInput(keeping: RelevantRequest.maximumLength)
            }
            let index = try invocation.openIndex()
            var found = try RelevantRequest(passage: text, limit: invocation.limit).run(in: index)
            if found.cutFrom != nil, let byteCount { found.cutFrom = byteCount }
            if let cutNote = found.cutNote { Terminal.printError("note: " + cutNote) }
            if let problem = found.semanticProblem { Terminal.printError(Advice.line(for: problem)) }
            if invocation.json {
                try JSONOutput.print(RelevantDocument(found))
            } else {
                print(
                    RelevantOutput.text(
                        found, color: Terminal.usesColor(invocation.color), width: Terminal.width ?? 100),
                    terminator: "")
            }
            return (index, !found.results.isEmpty)
        }
    }
}
