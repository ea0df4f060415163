import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDFiles
import XKCDKit

extension XKCDSearch {
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search the index.",
            discussion: QueryParser.syntaxHelp + """

                Examples:
                  xkcd-search search nebraska dependency
                  xkcd-search search '"little bobby tables"'
                  xkcd-search search phone year:2016
                  xkcd-search search title:lisp num:200..250 --json
                  xkcd-search search the one where the neural net learned the wrong thing
                  echo 'nebraska dependency' | xkcd-search search -
                  xkcd-search search --oneline --limit 100 physics | fzf | cut -f1 | xargs xkcd-search show

                Exit status: 0 with results, 1 when nothing is found, 2 for a usage error or a \
                query that cannot be read.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The query; several arguments are joined with spaces; '-' reads it from standard input.")
        var words: [String] = []

        @Flag(help: "Read the query from standard input (as '-' does).")
        var stdin = false

        @Option(help: "Results per page.")
        var limit = SearchRequest.defaultLimit

        @Option(help: "Which page of results to show.")
        var page = 1

        @Flag(help: "Print JSON (format documented in README.md).")
        var json = false

        @Flag(help: "Search the words as typed: no spelling correction or suggestion.")
        var exact = false

        @Flag(help: "One line per comic, number, title and date separated by tabs, nothing else: for fzf and scripts.")
        var oneline = false

        func validate() throws {
            guard stdin || !words.isEmpty else { throw ValidationError("Missing expected argument '<words> ...'") }
            guard !stdin || words.isEmpty else {
                throw ValidationError("give the query as words or with --stdin, not both")
            }
            // The request's own rules, worded with the options' names.
            do throws(RequestError) {
                _ = try invocation.request(text: "-")
            } catch {
                throw ValidationError(Advice.commandLineWords(for: error))
            }
        }

        func run() throws {
            _ = try invocation.searchAndPrint()
        }

        /// What the parsed options ask for.
        var invocation: Invocation {
            Invocation(
                database: global.db, words: stdin ? ["-"] : words, color: global.color, limit: limit, page: page,
                json: json,
                exact: exact, oneline: oneline, paging: !global.noPager, verbose: global.verbose)
        }

        /// A search as its options set it, however they were read: the request (``SearchRequest``)
        /// and how its answer is printed.
        struct Invocation: Equatable {
            var database: String?
            var words: [String]
            var color: Terminal.ColorChoice = .auto
            var limit = SearchRequest.defaultLimit
            var page = 1
            var json = false
            var exact = false
            /// One line per comic (``SearchOutput/oneline(_:)``).
            var oneline = false
            /// Whether a page of text results goes through the pager (on a terminal).
            var paging = true
            /// Whether the search logs its steps to standard error (`-v`).
            var verbose = false

            /// The search (or `relevant`) as the whole of the process's work, which exits with its
            /// status.
            ///
            /// The index is left open for the exit to close: GRDB's teardown of a connection
            /// starts Foundation's notification centre and a Dispatch thread, a sixth of the work
            /// of a short search process (docs/performance.md), for nothing the exit would not do.
            func runAsProcess(_ command: PlainCommand = .search) throws -> Never {
                let (index, found) =
                    try command == .search ? searchAndPrint() : XKCDSearch.Relevant.findAndPrint(self)
                // Nothing found is status 1, as grep and ripgrep have it.
                StandardStreams.flush()
                withExtendedLifetime(index) { XKCDSearch.exit(withError: found ? nil : ExitCode(1)) }
            }

            /// The search these options ask for, of `text`.
            ///
            /// - Throws: ``RequestError`` for a limit or page the request does not take.
            func request(text: String) throws(RequestError) -> SearchRequest {
                try SearchRequest(text: text, limit: limit, page: page, isExact: exact)
            }

            /// The index, opened read-only, with the sentence model where it is found, logging
            /// as `-v` asks.
            func openIndex() throws -> OpenIndex {
                try GlobalOptions.open(GlobalOptions.makeServices(database: database, verbose: verbose), .reading)
            }

            /// Returns the index, whose connection closes when the caller lets it go, and whether
            /// the page asked for holds any comic.
            func searchAndPrint() throws -> (index: OpenIndex, found: Bool) {
                var text = words.joined(separator: " ")
                if words == ["-"] {
                    // Lines of a pipe are words of one query; past the query's limit the engine says so.
                    let (read, byteCount) = try InputReading.standardInput(keeping: SearchEngine.maximumQueryLength)
                    guard byteCount <= SearchEngine.maximumQueryLength else {
                        throw SearchError.queryTooLong(length: byteCount, limit: SearchEngine.maximumQueryLength)
                    }
                    text = read.split(whereSeparator: \.isNewline).joined(separator: " ")
                }
                let index = try openIndex()
                let results = try request(text: text).run(in: index)
                if let problem = results.semanticProblem {
                    Terminal.printError(Advice.line(for: problem))
                }
                if json {
                    print(try SearchOutput.json(results))
                } else if oneline {
                    print(SearchOutput.oneline(results), terminator: "")
                } else {
                    Pager.start(unless: !paging)
                    print(
                        SearchOutput.text(
                            results, color: Terminal.usesColor(color), width: Terminal.width ?? 100,
                            command: nextPageCommand), terminator: "")
                }
                // An empty page is nothing found too: a script paging on would otherwise never stop.
                return (index, !results.results.isEmpty)
            }

            /// The command for the next page, as a shell takes it: the same index, page size and
            /// `--exact`, the words quoted where they need it, after `--` when one starts with a
            /// dash. A query read from standard input is not there to run again: only the option.
            var nextPageCommand: String {
                guard words != ["-"] else { return "--page \(page + 1)" }
                var options: [String] = []
                // `--db=…` for a path starting with a dash, which would read as an option.
                if let database {
                    options +=
                        database.hasPrefix("-")
                        ? ["--db=" + Self.shellQuoted(database)] : ["--db", Self.shellQuoted(database)]
                }
                if limit != SearchRequest.defaultLimit { options += ["--limit", String(limit)] }
                if exact { options.append("--exact") }
                options += ["--page", String(page + 1)]
                let quoted = words.map(Self.shellQuoted)
                let parts =
                    words.contains(where: { $0.hasPrefix("-") })
                    ? ["xkcd-search", "search"] + options + ["--"] + quoted
                    : ["xkcd-search", "search"] + quoted + options
                return parts.joined(separator: " ")
            }

            /// `word` as one shell word: as it is when nothing in it is special to a shell,
            /// else in single quotes. An `=` may not start it: zsh expands `=ls` to a path.
            static func shellQuoted(_ word: String) -> String {
                let plain =
                    !word.isEmpty && !word.hasPrefix("=")
                    && word.unicodeScalars.allSatisfy { scalar in
                        !scalar.isASCII || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                            || "@%+=:,./_-".unicodeScalars.contains(scalar)
                    }
                return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
            }
        }
    }
}
