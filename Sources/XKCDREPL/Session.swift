import Foundation
import Synchronization
import XKCDKit

/// The read-eval-print loop: reads lines, turns shortcuts into commands, runs them and pages
/// searches.
///
/// Shortcuts come first: a number shows that comic; `n`, `p`, `r`, `l`, `e` stand for `next`,
/// `prev`, `random`, `latest`, `explain`; `more` (or Enter after a page of results) shows the
/// next page; `fav`, `tag NAME`, `untag NAME` act on the current comic; `:help` and `:quit`.
/// A line that starts with a command goes to the command line's parser; anything else is a
/// query. A failing line prints one error line and the session goes on.
///
/// ```swift
/// let session = Session(host: host, index: index, input: StandardInputLineSource(), output: StandardOutputSink(flush: { fflush(nil) }))
/// let summary = await session.run()
/// if summary.failures > 0 { throw ExitCode.failure }
/// ```
public struct Session {
    /// How a session ended.
    public struct Summary: Sendable, Equatable {
        /// Lines that failed.
        public var failures: Int
    }

    /// What the session remembers between lines; the comic shown last is the library's
    /// (``Library/currentComicID()``).
    struct State {
        var lastSearch: SessionSearch?
        var lastResults: SearchResults?
        /// Enter on an empty line pages: true right after a page of results that has a next one.
        var entersPage = false
        /// Whether the session said that search by meaning is off: once is enough.
        var toldSemanticProblem = false
    }

    enum Outcome {
        case done
        case quit
        case interrupted
    }

    public static let prompt = "xkcd> "
    static let nextPageHint = "more (or Enter)"
    static let aliases = ["n": "next", "p": "prev", "r": "random", "l": "latest", "e": "explain"]

    let host: CommandHost
    /// The index the session's searches and commands read, opened once for the whole session.
    let index: OpenIndex
    var library: Library { index.library }
    let input: any LineSource
    let output: any OutputSink
    let interrupts: any InterruptSource
    /// Whether errors name their line (`line 3: …`): for a script read from a pipe, where no one
    /// sees which line was typed last.
    let numbersErrors: Bool

    /// The one line a person sees before the first prompt.
    public static let hint =
        "Type words to search, a number to show that comic, :help for more; quit or Ctrl-D to leave."

    public init(
        host: CommandHost, index: OpenIndex, input: any LineSource, output: any OutputSink,
        interrupts: any InterruptSource = NoInterrupts(), numbersErrors: Bool = false
    ) {
        self.numbersErrors = numbersErrors
        self.host = host
        self.index = index
        self.input = input
        self.output = output
        self.interrupts = interrupts
    }

    /// Reads and runs lines until `:quit` or the end of the input.
    public func run() async -> Summary {
        var state = State()
        var failures = 0
        var lineNumber = 0
        while true {
            output.flush()
            _ = interrupts.takeInterrupt()
            switch input.readLine(prompt: Self.prompt) {
            case .end:
                return Summary(failures: failures)
            case .interrupted:
                state.entersPage = false
            case .line(let line):
                lineNumber += 1
                if await run(line, state: &state, lineNumber: lineNumber, failures: &failures) == .quit {
                    return Summary(failures: failures)
                }
            case .pasted(let lines):
                // A pasted paragraph is one passage; lines typed ahead of the prompt (commands,
                // numbers) run one by one.
                for line in Self.isQuery(lines[0], host: host) ? [":relevant " + lines.joined(separator: " ")] : lines {
                    lineNumber += 1
                    if await run(line, state: &state, lineNumber: lineNumber, failures: &failures) == .quit {
                        return Summary(failures: failures)
                    }
                }
            }
        }
    }

    /// Runs one line and says how it went; an error is counted and printed.
    private func run(_ line: String, state: inout State, lineNumber: Int, failures: inout Int) async -> Outcome {
        do {
            let outcome = try await execute(line, state: &state)
            if outcome == .interrupted { output.write("^C\n") }
            return outcome
        } catch {
            failures += 1
            if let message = Self.message(for: error, host: host) {
                output.writeError((numbersErrors ? "line \(lineNumber): " : "") + "error: \(message)\n")
            }
            return .done
        }
    }

    /// Runs one line.
    func execute(_ line: String, state: inout State) async throws -> Outcome {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty {
            return state.entersPage ? try await more(&state) : .done
        }
        state.entersPage = false
        let head = String(trimmed.prefix { $0 != " " && $0 != "\t" })
        let word = head.lowercased()
        switch word {
        // Alone on the line, or with a colon.
        case _ where Self.helpWords.contains(word):
            guard trimmed == head || word.hasPrefix(":") else { break }
            show(help)
            return .done
        // Alone on the line: none of them is worth searching for.
        case _ where Self.quitWords.contains(word):
            guard trimmed == head else { break }
            return .quit
        case "more":
            guard trimmed == head else { break }
            return try await more(&state)
        default: break
        }
        let arguments: [String]
        if word == ":relevant" {
            // A pasted paragraph is one passage, whatever quotes and apostrophes it holds.
            arguments = ["relevant", "--", String(trimmed.dropFirst(head.count)).trimmingCharacters(in: .whitespaces)]
        } else if word == ":identify" {
            // A file name as typed or dropped into the terminal: spaces and all, quotes around it
            // or backslashes before its spaces as a shell writes them.
            let typed = String(trimmed.dropFirst(head.count)).trimmingCharacters(in: .whitespaces)
            let path = (try? ArgumentTokenizer.split(typed)).flatMap { $0.count == 1 ? $0[0] : nil } ?? typed
            arguments = ["identify", "--", path]
        } else if Self.isCommand(head, host: host) {
            arguments = try expand(try ArgumentTokenizer.split(trimmed))
        } else {
            return try await search(
                SessionSearch(try SearchRequest(text: trimmed), render: host.renderSearch), state: &state)
        }
        if arguments.first?.lowercased() == "repl" { throw REPLError.alreadyInREPL }
        switch try host.parse(arguments) {
        case .search(let request):
            return try await search(request, state: &state)
        case .output(let text):
            show(text.hasSuffix("\n") ? text : text + "\n")
            return .done
        case .run(let body):
            return try await collectingOutput { try await interruptibly(body) } == nil ? .interrupted : .done
        case .runOnTerminal(let body):
            return try await interruptibly(body) == nil ? .interrupted : .done
        case .runUntilStopped(let body):
            return try await interruptibly(body, waitingAfterInterrupt: true) == nil ? .interrupted : .done
        }
    }

    /// With other prompts' spellings: psql's \\? and sqlite3's .help.
    static let helpWords: Set = [":help", ":h", ":?", "?", "\\?", ".help"]
    /// The words other prompts leave with (psql's \\q, sqlite3's .quit, a shell's exit).
    static let quitWords: Set = [":quit", ":q", ":exit", "quit", "exit", "q", "\\q", ".quit", ".exit"]

    /// Whether a line starting with the word `head` is a command, a shortcut or a comic number.
    static func isCommand(_ head: String, host: CommandHost) -> Bool {
        let word = head.lowercased()
        return word == "help" || host.root.subcommand(named: word) != nil || aliases[word] != nil
            || ["tag", "untag"].contains(word)
            || (try? ComicReference(parsing: head)).map { if case .number = $0 { true } else { false } } ?? false
    }

    /// Whether `line` would be searched: no command, shortcut, number or word of the REPL's own.
    static func isQuery(_ line: String, host: CommandHost) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let head = String(trimmed.prefix { $0 != " " && $0 != "\t" })
        let word = head.lowercased()
        let isOwnWord = trimmed == head && (helpWords.contains(word) || quitWords.contains(word) || word == "more")
        return !trimmed.isEmpty && !word.hasPrefix(":") && !isOwnWord && !isCommand(head, host: host)
    }

    /// Turns the shortcuts in a line's words into the command line's words.
    func expand(_ words: [String]) throws -> [String] {
        guard let head = words.first?.lowercased() else { return words }
        let rest = Array(words.dropFirst())
        if let command = Self.aliases[head] { return [command] + rest }
        if (try? ComicReference(parsing: head)) != nil, host.root.subcommand(named: head) == nil {
            return ["show"] + words
        }
        switch head {
        case "tag", "untag":
            return try onCurrentComic(["fav", head], rest)
        case "fav":
            guard let sub = rest.first?.lowercased() else { return ["fav", "add", try currentComic()] }
            if ["add", "tag", "untag", "remove", "rm"].contains(sub) {
                return try onCurrentComic(["fav", sub], Array(rest.dropFirst()), numberLike: true)
            }
            return words
        default:
            return words
        }
    }

    /// `command` followed by the comic in `arguments`, or by the current comic when the first
    /// argument is not a comic.
    ///
    /// - Parameter numberLike: a first argument that starts with a digit or `#` is the comic,
    ///   as on the command line, so that `fav add 3z7` and `fav add 0` are errors there too, not
    ///   tags on the current comic.
    private func onCurrentComic(_ command: [String], _ arguments: [String], numberLike: Bool = false) throws -> [String]
    {
        if let first = arguments.first, (try? ComicReference(parsing: first)) != nil { return command + arguments }
        if numberLike, let first = arguments.first?.first, first.isASCII && first.isNumber || first == "#" {
            return command + arguments
        }
        return command + [try currentComic()] + arguments
    }

    private func currentComic() throws -> String {
        guard let id = library.currentComicID() else { throw REPLError.noCurrentComic }
        return String(id)
    }

    // MARK: Searching

    private func search(_ search: SessionSearch, state: inout State) async throws -> Outcome {
        let (request, index) = (search.request, index)
        let run = { @Sendable in try request.run(in: index) }
        guard let results = try await interruptibly(run) else { return .interrupted }
        if let problem = results.semanticProblem, !state.toldSemanticProblem {
            output.writeError("note: \(problem)\n")
            state.toldSemanticProblem = true
        }
        show(search.render(results, Self.nextPageHint), paging: search.isPaged)
        state.lastSearch = search
        state.lastResults = results
        state.entersPage = results.hasNextPage
        return .done
    }

    private func more(_ state: inout State) async throws -> Outcome {
        guard var search = state.lastSearch, let results = state.lastResults else {
            throw REPLError.noSearchToContinue
        }
        guard results.hasNextPage else {
            output.write("no more results (\(results.total) in all)\n")
            return .done
        }
        search.request.page = results.page + 1
        return try await self.search(search, state: &state)
    }

    // MARK: Paging

    /// Writes text the session made, through the host's pager when it is taller than the screen.
    private func show(_ text: String, paging: Bool = true) {
        guard paging, let pager = host.pager else { return output.write(text) }
        output.flush()
        pager.show(text)
    }

    /// Runs a command with what it prints collected, then shows that through the host's pager
    /// when it is taller than the screen. After Ctrl-C what it printed so far is shown as it is.
    private func collectingOutput<T>(_ work: () async throws -> T?) async throws -> T? {
        guard let pager = host.pager else { return try await work() }
        output.flush()
        guard pager.startCollecting() else { return try await work() }
        let result: T?
        do {
            result = try await work()
        } catch {
            pager.finishCollecting(paging: true)
            throw error
        }
        pager.finishCollecting(paging: result != nil)
        return result
    }

    /// Runs `work` on another task while watching for Ctrl-C.
    ///
    /// - Returns: the result, or nil after Ctrl-C: the task is cancelled and its result, when
    ///   it comes, is dropped (a search in SQLite cannot stop halfway, so it finishes unseen).
    /// - Parameter waitingAfterInterrupt: after Ctrl-C, wait for the cancelled task to end.
    private func interruptibly<T: Sendable>(
        _ work: @escaping @Sendable () async throws -> T, waitingAfterInterrupt: Bool = false
    ) async throws -> T? {
        // The watch below wakes every 5 ms: on a shared machine those wake-ups slowed a search
        // beside them by half (docs/int8.md), for nothing when no Ctrl-C can come.
        guard interrupts.canInterrupt else { return try await work() }
        let finished = Finished()
        let task = Task.detached {
            defer { finished.flag.store(true, ordering: .releasing) }
            return try await work()
        }
        while !finished.flag.load(ordering: .acquiring) {
            if interrupts.takeInterrupt() {
                task.cancel()
                if waitingAfterInterrupt { _ = try? await task.value }
                return nil
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return try await task.value
    }

    private final class Finished: Sendable {
        let flag = Atomic<Bool>(false)
    }

    // MARK: Text

    static func message(for error: any Error, host: CommandHost) -> String? {
        if let error = error as? REPLError { return error.description }
        guard let message = host.describe(error) else { return nil }
        let line = message.split(separator: "\n").first.map(String.init) ?? ""
        return line.isEmpty ? nil : line
    }

    var help: String {
        let commands = host.root.subcommands.map(\.name).joined(separator: ", ")
        return """
            Type a query to search, or a command as on the command line, without 'xkcd-search'.
              bobby tables         search (the query syntax: 'help search')
              more, or Enter       the next page of the last search
              327, #327            show that comic; it becomes the current comic
              n, p                 next, prev: the comic after, before the current one
              r, l                 random, latest
              e                    explain the current comic
              related              the comics linked to and from its explanation, and the nearest in meaning
              :relevant TEXT       the comics that fit a pasted paragraph, and why (a paste of
                                   several lines is taken so too)
              :identify PATH       which comic an image shows (a screenshot, a crop, a photo)
              fav                  add the current comic to the favourites
              tag NAME…            tag the current comic (untag NAME… removes tags)
              fav add 327 sql      every command works: \(commands)
              help COMMAND         a command's options
              :help, quit          this help; leave (also exit, q, \\q, :quit, Ctrl-D)
            Keys: Tab completes (commands, options, their values, file names), Up and Down recall
            history, Ctrl-R searches it, Ctrl-C cancels. Output taller than the screen goes through
            $XKCD_SEARCH_PAGER, $PAGER or less -FRX ('repl --no-pager' or PAGER=cat turn it off).

            """
    }
}

// A session reads and writes through its line source and sink, which are not made to be shared.
@available(*, unavailable)
extension Session: Sendable {}
