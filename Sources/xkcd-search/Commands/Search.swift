import ArgumentParser
import Foundation
import XKCDCommandLine
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

                Exit status: 0 with results, 1 when nothing is found, 2 for a usage error or a \
                query that cannot be read.
                """)

        // The options declare no default values: ArgumentParser describes each default with
        // dynamic casts while it reads the declarations, help or not, which took 4% of a search
        // process's instructions. The defaults are applied below and named in the help.
        @OptionGroup var global: GlobalOptions
        @Option(help: "Colour and bold: auto (the default: on a terminal, unless NO_COLOR is set), always or never.")
        var color: Terminal.ColorChoice?

        @Argument(help: "The query; several arguments are joined with spaces.")
        var words: [String]

        @Option(help: "Results per page (default: \(defaultLimit)).")
        var limit: Int?

        @Option(help: "Which page of results to show (default: 1).")
        var page: Int?

        @Flag(help: "Print JSON (format documented in README.md).")
        var json = false

        @Flag(help: "Search the words as typed: no spelling correction or suggestion.")
        var exact = false

        static let defaultLimit = 10
        var colorChoice: Terminal.ColorChoice { color ?? .auto }
        var pageSize: Int { limit ?? Self.defaultLimit }
        var pageNumber: Int { page ?? 1 }

        /// The page sizes `--limit` accepts; the plain reader below checks the same, so that it
        /// reads only what this accepts.
        static let limits = 1...1000

        func validate() throws {
            guard Self.limits.contains(pageSize) else { throw ValidationError("--limit must be between \(Self.limits.lowerBound) and \(Self.limits.upperBound)") }
            guard pageNumber >= 1 else { throw ValidationError("--page must be 1 or more") }
        }

        func run() throws {
            _ = try request.searchAndPrint()
        }

        /// What the parsed options ask for.
        var request: Request {
            Request(
                database: global.db, words: words, color: colorChoice, limit: pageSize, page: pageNumber, json: json,
                exact: exact, paging: !global.noPager)
        }

        /// A search as its options set it, however they were read.
        struct Request: Equatable {
            var database: String?
            var words: [String]
            var color: Terminal.ColorChoice = .auto
            var limit = Search.defaultLimit
            var page = 1
            var json = false
            var exact = false
            /// Whether a page of text results goes through the pager (on a terminal).
            var paging = true

            /// The search as the whole of the process's work: the index is left for the exit to
            /// close. Closing it first (GRDB's teardown of a connection starts Foundation's
            /// notification centre and a Dispatch thread) took 3% of a search process's instructions.
            func runAsProcess() throws -> Never {
                let (engine, found) = try searchAndPrint()
                // Nothing found is status 1, as grep and ripgrep have it.
                withExtendedLifetime(engine) { XKCDSearch.exit(withError: found ? nil : ExitCode(1)) }
            }

            /// Returns the engine, whose connection closes when the caller lets it go, and whether
            /// any comic was found.
            func searchAndPrint() throws -> (engine: SearchEngine, found: Bool) {
                let text = Self.spaced(words)
                let engine = SearchEngine(
                    database: try GlobalOptions.openDatabase(at: database, connections: .readOnly),
                    sentenceModel: .located())
                let results = try engine.search(text, limit: limit, page: page, correctingSpelling: !exact)
                if let problem = results.semanticProblem {
                    Terminal.printError(problem.description)
                }
                if json {
                    print(try SearchOutput.json(results))
                } else {
                    Pager.start(unless: !paging)
                    print(SearchOutput.text(results, color: Terminal.usesColor(color), width: Terminal.width ?? 100, command: nextPageCommand), terminator: "")
                }
                return (engine, results.total > 0)
            }

            /// The command for the next page, as a shell takes it: the same index and page size,
            /// the words quoted where they need it, after `--` when one starts with a dash.
            var nextPageCommand: String {
                var options: [String] = []
                // `--db=…` for a path starting with a dash, which would read as an option.
                if let database {
                    options += database.hasPrefix("-") ? ["--db=" + Self.shellQuoted(database)] : ["--db", Self.shellQuoted(database)]
                }
                if limit != Search.defaultLimit { options += ["--limit", String(limit)] }
                options += ["--page", String(page + 1)]
                let quoted = words.map(Self.shellQuoted)
                let parts = words.contains(where: { $0.hasPrefix("-") })
                    ? ["xkcd-search", "search"] + options + ["--"] + quoted
                    : ["xkcd-search", "search"] + quoted + options
                return Self.spaced(parts)
            }

            /// `words` joined by spaces, by hand: `joined(separator:)` is generic over collections
            /// of strings, and its first call in a process scans every protocol conformance in
            /// the binary (0.3M instructions).
            static func spaced(_ words: [String]) -> String {
                var text = ""
                for (index, word) in words.enumerated() {
                    if index > 0 { text += " " }
                    text += word
                }
                return text
            }

            /// `word` as one shell word: as it is when nothing in it is special to a shell,
            /// else in single quotes. An `=` may not start it: zsh expands `=ls` to a path.
            static func shellQuoted(_ word: String) -> String {
                let plain = !word.isEmpty && !word.hasPrefix("=") && word.unicodeScalars.allSatisfy { scalar in
                    !scalar.isASCII || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "@%+=:,./_-".unicodeScalars.contains(scalar)
                }
                return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
            }
        }
    }
}

extension XKCDSearch.Search.Request {
    /// Reads the plainest `search` arguments (words, `--db`, `--json`, `--exact`, `--color`,
    /// `--limit`, `--page`, `--verbose`, `--`) as ArgumentParser reads them, or returns nil for anything
    /// else, which ArgumentParser then reads: help, other spellings, a value it would refuse.
    ///
    /// ArgumentParser's first parse in a process builds the type metadata of every option and
    /// scans the binary's protocol conformances: 11 of a search process's 23 million
    /// instructions, 1.6 ms of 5.8. ArgumentParser still defines, documents and checks every
    /// option; a test holds this reader to its results.
    init?(plainArguments arguments: [String]) {
        words = []
        var index = arguments.startIndex
        // Options read so far: a repeat is left to ArgumentParser. An array, not a set: a
        // process's first set of strings has the runtime scan the binary's conformances.
        var seen: [String] = []
        func firstTime(_ option: String) -> Bool {
            if seen.contains(option) { return false }
            seen.append(option)
            return true
        }
        var afterTerminator = false
        /// The value after an option, once; nil (so ArgumentParser decides) when it is missing,
        /// looks like an option or the option came before.
        func value(of option: String) -> String? {
            index += 1
            guard index < arguments.endIndex, !arguments[index].hasPrefix("-"), firstTime(option) else { return nil }
            return arguments[index]
        }
        while index < arguments.endIndex {
            let argument = arguments[index]
            if afterTerminator || !argument.hasPrefix("-") {
                words.append(argument)
            } else {
                switch argument {
                case "--": afterTerminator = true
                case "--json":
                    guard firstTime(argument) else { return nil }
                    json = true
                case "--exact":
                    guard firstTime(argument) else { return nil }
                    exact = true
                case "-v", "--verbose":
                    guard firstTime("--verbose") else { return nil }  // a search logs nothing
                case "--db":
                    guard let path = value(of: argument) else { return nil }
                    database = path
                case "--color":
                    guard let name = value(of: argument), let choice = Terminal.ColorChoice(rawValue: name) else { return nil }
                    color = choice
                case "--limit":
                    guard let number = value(of: argument).flatMap({ Int($0) }), XKCDSearch.Search.limits.contains(number) else { return nil }
                    limit = number
                case "--page":
                    guard let number = value(of: argument).flatMap({ Int($0) }), number >= 1 else { return nil }
                    page = number
                default: return nil
                }
            }
            index += 1
        }
        guard !words.isEmpty else { return nil }
    }
}

/// How search results are printed.
enum SearchOutput {
    struct JSONPage: Encodable {
        struct Result: Encodable {
            var num: Int
            var title: String
            var date: String
            var score: Double
            var snippet: String
            var url: String
            var partial: Bool
            /// "all-words", "some-words" or "similar" (found by meaning alone).
            var match: String
        }
        var query: String
        var total: Int
        var page: Int
        var limit: Int
        var corrected: String?
        var suggestion: String?
        var results: [Result]
    }

    static func json(_ results: SearchResults) throws -> String {
        let page = JSONPage(
            query: results.query, total: results.total, page: results.page, limit: results.limit,
            corrected: results.corrected, suggestion: results.suggestion,
            results: results.results.map { result in
                JSONPage.Result(
                    num: result.id, title: result.title, date: result.date.description,
                    score: (result.score * 1000).rounded() / 1000,
                    snippet: plainSnippet(result.snippet), url: "https://xkcd.com/\(result.id)/",
                    partial: result.isPartialMatch, match: result.match.rawValue)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // JSONEncoder writes nil optionals as absent keys; the documented format has them as null.
        var object = try JSONSerialization.jsonObject(with: encoder.encode(page)) as! [String: Any]
        object["corrected"] = results.corrected ?? NSNull()
        object["suggestion"] = results.suggestion ?? NSNull()
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: Terminal.escapingControls(inJSON: data), as: UTF8.self)
    }

    static func plainSnippet(_ snippet: String) -> String {
        styled(sanitized(snippet), style: Style(enabled: false))
    }

    /// - Parameter command: the command for the next page, asked for only when there is one.
    static func text(_ results: SearchResults, color: Bool, width: Int, command: @autoclosure () -> String) -> String {
        let style = Style(enabled: color)
        var out = ""
        if let corrected = results.corrected {
            out += style.dim("no results for \u{201C}\(sanitized(results.query))\u{201D}; showing results for \u{201C}\(sanitized(corrected))\u{201D}") + "\n\n"
        } else if let suggestion = results.suggestion {
            out += style.dim("did you mean: \(sanitized(suggestion))") + "\n\n"
        }
        guard !results.results.isEmpty else {
            out += results.total == 0 ? "no comics found\n" : "no results on page \(results.page) (there are \(results.pageCount) pages)\n"
            return out
        }
        for result in results.results {
            // Partial matches rank among full ones, so each says so on its own line.
            let partial =
                switch result.match {
                case .allWords: ""
                case .someWords: "  " + style.dim("[some of the words]")
                case .similar: "  " + style.dim("[similar in meaning]")
                }
            out += style.bold("#\(result.id)") + "  " + style.bold(sanitized(result.title)) + "  (\(result.date))" + partial + "\n"
            for line in wrap(sanitized(result.snippet), width: max(width - 4, 30), maxLines: 2) {
                out += "    " + styled(line, style: style) + "\n"
            }
            out += "\n"
        }
        let first = (results.page - 1) * results.limit + 1
        let last = first + results.results.count - 1
        var footer = "\(first)-\(last) of \(results.total) result\(results.total == 1 ? "" : "s")"
        if results.hasNextPage {
            // A command that held control characters would run another query once they are
            // removed: then only the option is shown.
            let next = command()
            footer += " · next page: " + (sanitized(next) == next ? next : "--page \(results.page + 1)")
        }
        out += style.dim(footer) + "\n"
        return out
    }

    private static let openMark = Array(SearchEngine.highlightMarks.open.utf8)
    private static let closeMark = Array(SearchEngine.highlightMarks.close.utf8)
    private static let markFirstBytes = (open: openMark[0], close: closeMark[0])

    /// The snippet with its highlight marks turned into the style's highlight (or removed).
    ///
    /// Byte by byte, like ``wrap(_:width:maxLines:)``: Foundation's `replacingOccurrences` cost
    /// a millisecond of every search, and building Strings a scalar at a time a third of one.
    private static func styled(_ marked: String, style: Style) -> String {
        let start = Array(style.highlightStart.utf8), end = Array(style.highlightEnd.utf8)
        var out: [UInt8] = []
        var marked = marked
        marked.withUTF8 { bytes in
            out.reserveCapacity(bytes.count + 16)
            var index = 0
            while index < bytes.count {
                if let mark = mark(in: bytes, at: index) {
                    out += mark == .open ? start : end
                    index += mark == .open ? openMark.count : closeMark.count
                } else {
                    out.append(bytes[index])
                    index += 1
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private enum Mark { case open, close }

    /// The highlight mark that starts at `index`, if one does.
    private static func mark(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Mark? {
        // Most bytes start neither mark: one comparison each before the marks are read.
        let byte = bytes[index]
        guard byte == markFirstBytes.open || byte == markFirstBytes.close else { return nil }
        func matches(_ mark: [UInt8]) -> Bool {
            guard index + mark.count <= bytes.count else { return false }
            for offset in mark.indices where bytes[index + offset] != mark[offset] { return false }
            return true
        }
        return matches(openMark) ? .open : matches(closeMark) ? .close : nil
    }

    /// Cuts a one-line snippet at its spaces into at most `maxLines` lines of `width` visible
    /// characters (highlight marks take no room).
    private static func wrap(_ marked: String, width: Int, maxLines: Int) -> [String] {
        var lines: [String] = []
        var line: [UInt8] = []
        var visible = 0
        var marked = marked
        marked.withUTF8 { bytes in
            var wordStart = 0
            while wordStart < bytes.count {
                var wordEnd = wordStart
                var marks = 0
                var markBytes = 0
                var isASCII = true
                while wordEnd < bytes.count, bytes[wordEnd] != 0x20 {
                    if let mark = mark(in: bytes, at: wordEnd) {
                        marks += 1
                        markBytes += mark == .open ? openMark.count : closeMark.count
                        wordEnd += mark == .open ? openMark.count : closeMark.count
                    } else {
                        isASCII = isASCII && bytes[wordEnd] < 0x80
                        wordEnd += 1
                    }
                }
                defer { wordStart = wordEnd + 1 }
                guard wordEnd > wordStart else { continue }
                let word = UnsafeBufferPointer(rebasing: bytes[wordStart..<wordEnd])
                // Characters, as a terminal shows them; ASCII needs no grapheme breaking.
                let length = isASCII
                    ? word.count - markBytes
                    : String(decoding: word, as: UTF8.self).count - marks
                if visible > 0, visible + 1 + length > width {
                    lines.append(String(decoding: line, as: UTF8.self))
                    if lines.count == maxLines {
                        lines[maxLines - 1] += " …"
                        return
                    }
                    line.removeAll(keepingCapacity: true)
                    visible = 0
                }
                if visible > 0 {
                    line.append(0x20)
                    visible += 1
                }
                line += word
                visible += length
            }
            if !line.isEmpty { lines.append(String(decoding: line, as: UTF8.self)) }
        }
        return lines
    }
}

/// ANSI styles that turn into nothing when colour is off.
struct Style {
    let enabled: Bool
    func bold(_ text: String) -> String { enabled ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { enabled ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    var highlightStart: String { enabled ? "\u{1B}[1;33m" : "" }
    var highlightEnd: String { enabled ? "\u{1B}[0m" : "" }
}
