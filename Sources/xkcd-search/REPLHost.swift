import ArgumentParser
import Foundation
import Synchronization
import XKCDCommandLine
import XKCDKit
import XKCDREPL

/// Commands that take the global options, so the REPL can hand them its `--db` and `--verbose`.
protocol CarriesGlobalOptions: ParsableCommand {
    var global: GlobalOptions { get set }
}

extension XKCDSearch.Index: CarriesGlobalOptions {}
extension XKCDSearch.Search: CarriesGlobalOptions {}
extension XKCDSearch.Stats: CarriesGlobalOptions {}
extension XKCDSearch.Show: CarriesGlobalOptions {}
extension XKCDSearch.Explain: CarriesGlobalOptions {}
extension XKCDSearch.Next: CarriesGlobalOptions {}
extension XKCDSearch.Prev: CarriesGlobalOptions {}
extension XKCDSearch.Latest: CarriesGlobalOptions {}
extension XKCDSearch.Random: CarriesGlobalOptions {}
extension XKCDSearch.Link: CarriesGlobalOptions {}
extension XKCDSearch.Open: CarriesGlobalOptions {}
extension XKCDSearch.Related: CarriesGlobalOptions {}
extension XKCDSearch.Relevant: CarriesGlobalOptions {}
extension XKCDSearch.Fav.Add: CarriesGlobalOptions {}
extension XKCDSearch.Fav.Remove: CarriesGlobalOptions {}
extension XKCDSearch.Fav.Tag: CarriesGlobalOptions {}
extension XKCDSearch.Fav.Untag: CarriesGlobalOptions {}
extension XKCDSearch.Fav.List: CarriesGlobalOptions {}
extension XKCDSearch.Fav.Tags: CarriesGlobalOptions {}
extension XKCDSearch.Fav.Export: CarriesGlobalOptions {}
extension XKCDSearch.Fav.Import: CarriesGlobalOptions {}
extension XKCDSearch.Repl: CarriesGlobalOptions {}

/// Commands that show a comic page, so the REPL can hand them its image options.
protocol ShowsComicPage: ParsableCommand {
    var output: PageOptions { get set }
}

extension XKCDSearch.Show: ShowsComicPage {}
extension XKCDSearch.Next: ShowsComicPage {}
extension XKCDSearch.Prev: ShowsComicPage {}
extension XKCDSearch.Latest: ShowsComicPage {}
extension XKCDSearch.Random: ShowsComicPage {}

/// The command line as the REPL sees it: the same parser, the same output.
struct REPLHost {
    var global: GlobalOptions
    /// `repl --image …`: the defaults of the pages the session shows.
    var image: ImageOptions?

    func makeCommandHost() -> CommandHost {
        let database = global.db
        let isVerbose = global.verbose
        let color = global.color
        let imageArguments = image.map { ["--image", $0.image.rawValue] + $0.arguments }  // Sendable
        return CommandHost(
            root: Self.commandTree,
            parse: { typed in
                // `--db X show 327` as on the command line.
                let arguments = GlobalOptions.movedAfterTheCommand(typed)
                do {
                    var command = try XKCDSearch.parseAsRoot(arguments)
                    if var carrier = command as? any CarriesGlobalOptions {
                        if carrier.global.db == nil { carrier.global.db = database }
                        if isVerbose { carrier.global.verbose = true }
                        if carrier.global.color == .auto { carrier.global.color = color }
                        command = carrier
                    }
                    if let imageArguments, var page = command as? any ShowsComicPage {
                        page.output.image.takeDefaults(from: try ImageOptions.parse(imageArguments))
                        command = page
                    }
                    if let index = command as? XKCDSearch.Index {
                        let forwarded = index.indexerArguments(typed: Array(arguments.dropFirst()))
                        return .runUntilStopped {
                            try await SiblingExecutable.locate(.indexer).run(arguments: forwarded)
                        }
                    }
                    // The server would replace the session's process: it runs from the shell.
                    if command is XKCDSearch.Serve {
                        throw REPLError.command("'serve' runs from the shell, not in the session: xkcd-search serve")
                    }
                    if let search = command as? XKCDSearch.Search, !search.json {
                        return .search(
                            SessionSearch(
                                try search.invocation.request(text: search.words.joined(separator: " ")),
                                isPaged: !search.global.noPager, render: Self.render(colored: search.global.usesColor)))
                    }
                    let parsed = ParsedCommand(command: command)
                    return Self.pagesOutput(of: command)
                        ? .run { try await parsed.run() } : .runOnTerminal { try await parsed.run() }
                } catch {
                    if XKCDSearch.exitCode(for: error) == .success {
                        return .output(XKCDSearch.fullMessage(for: error))
                    }
                    throw REPLError.command(
                        sanitized(Advice.adding(to: XKCDSearch.message(for: error), for: error), keepingNewlines: true))
                }
            },
            describe: { error in
                let message = sanitized(
                    Advice.adding(to: XKCDSearch.message(for: error), for: error), keepingNewlines: true)
                return message.isEmpty ? nil : message
            },
            renderSearch: Self.render(colored: Terminal.usesColor(color)),
            pager: Pager.command(disabled: global.noPager).map(TerminalPager.init))
    }

    /// A page of results as `search` prints it, the next-page hint in its footer.
    static func render(colored: Bool) -> @Sendable (SearchResults, String) -> String {
        { results, hint in SearchOutput.text(results, color: colored, width: Terminal.width ?? 100, command: hint) }
    }

    /// Whether what a command prints may go through the session's pager: not for `open`, whose
    /// browser takes the terminal, nor for a command typed with `--no-pager`.
    static func pagesOutput(of command: any ParsableCommand) -> Bool {
        if command is XKCDSearch.Open { return false }
        return (command as? any CarriesGlobalOptions)?.global.noPager != true
    }

    /// The commands, subcommands and options, from the parser's own description of them: its
    /// `--experimental-dump-help` JSON, where each argument says what its value completes to.
    static let commandTree: CommandSpec = {
        struct Tool: Decodable { var command: Command }
        struct Command: Decodable {
            var commandName: String
            var aliases: [String]?
            var subcommands: [Command]?
            var arguments: [Argument]?
        }
        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            /// `{"list": {"values": [...]}}`, `{"file": {"extensions": [...]}}`, `{"directory": {}}`, ….
            struct Kind: Decodable {
                struct Values: Decodable { var values: [String] }
                struct Extensions: Decodable { var extensions: [String] }
                var list: Values?
                var file: Extensions?
                var directory: [String: String]?
            }
            var kind: String
            var shouldDisplay: Bool
            var names: [Name]?
            var allValues: [String]?
            var completionKind: Kind?

            var spelled: [String] {
                (names ?? []).map { $0.kind == "long" ? "--\($0.name)" : "-\($0.name)" }
            }

            /// What the value completes to, as its declaration says (`completion:`).
            var completion: ValueCompletion {
                if let list = completionKind?.list { return .values(list.values) }
                if let allValues { return .values(allValues) }
                if let file = completionKind?.file { return .files(extensions: file.extensions) }
                if completionKind?.directory != nil { return .directories }
                return .none
            }
        }
        func spec(_ command: Command) -> CommandSpec {
            let arguments = command.arguments ?? []
            let named = arguments.filter { $0.kind != "positional" && $0.shouldDisplay }
            var optionValues: [String: ValueCompletion] = [:]
            for option in arguments where option.kind == "option" {
                for name in option.spelled { optionValues[name] = option.completion }
            }
            // The parser lists its help flag already; `--help` is added only where it does not.
            var options = named.flatMap(\.spelled)
            if !options.contains("--help") { options.append("--help") }
            return CommandSpec(
                name: command.commandName, aliases: command.aliases ?? [], options: options,
                optionValues: optionValues, arguments: arguments.filter { $0.kind == "positional" }.map(\.completion),
                subcommands: (command.subcommands ?? []).map(spec))
        }
        guard let tool = try? JSONDecoder().decode(Tool.self, from: Data(XKCDSearch._dumpHelp().utf8)) else {
            return CommandSpec(name: "xkcd-search")
        }
        return spec(tool.command)
    }()
}

/// The REPL's paging on a terminal: a command's output collected on a pseudo-terminal
/// (``OutputCapture``), then shown through the pager the command line would run
/// (``Pager/show(_:through:)``), which the session waits for before the next prompt.
final class TerminalPager: ScreenPager {
    /// The pager, as `/bin/sh -c` runs it.
    let command: String
    private let capture = Mutex<OutputCapture?>(nil)

    init(command: String) {
        self.command = command
    }

    func startCollecting() -> Bool {
        guard let started = OutputCapture.start() else { return false }
        capture.withLock { $0 = started }
        return true
    }

    func finishCollecting(paging: Bool) {
        guard let running = capture.withLock({ $0.take() }) else { return }
        let bytes = running.finish()
        if paging {
            Pager.show(bytes, through: command)
        } else {
            StandardStreams.writeOutput(bytes)
        }
    }

    func show(_ text: String) {
        Pager.show(Array(text.utf8), through: command)
    }
}

/// A parsed command on its way to the task that runs it. Unchecked because `ParsableCommand`
/// is not `Sendable`, but a parsed command is a plain value (strings, numbers, flags) that only
/// the one running task touches after this. A clean exit (help, version) prints its message.
struct ParsedCommand: @unchecked Sendable {
    var command: any ParsableCommand

    func run() async throws {
        var command = command
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch  where XKCDSearch.exitCode(for: error) == .success {
            print(XKCDSearch.fullMessage(for: error))
        }
    }
}
