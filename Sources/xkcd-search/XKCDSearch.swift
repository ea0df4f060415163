import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDImageCommand
import XKCDIndexCommand
import XKCDKit
import XKCDServeCommand

/// The root command.
struct XKCDSearch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xkcd-search",
        abstract: "Full-text search for xkcd comics, offline once indexed.",
        discussion: """
            Comics: Randall Munroe, https://xkcd.com, CC BY-NC 2.5.
            Explanations: the explain xkcd wiki, https://www.explainxkcd.com, CC BY-SA 3.0.

            Exit status: 0 on success, 1 when a search finds nothing, 2 for a usage error or a \
            query that cannot be read, 3 when an index run left some comics failed.
            """,
        version: "0.1.0",
        subcommands: [
            Index.self, Search.self, Stats.self, Show.self, Explain.self, Next.self, Prev.self, Latest.self,
            Random.self, Link.self, Open.self, Related.self, Relevant.self, Identify.self, Fav.self, About.self,
            Repl.self,
            Serve.self,
        ]
    )

    /// The global options before a command are moved after it (``GlobalOptions/movedAfterTheCommand(_:)``);
    /// declared here too so that the help lists them once and a shell completes their values
    /// before the command (`xkcd-search --db <Tab>`), and for a bare `xkcd-search --db X`.
    @OptionGroup var global: GlobalOptions
}

/// Runs the command line: a plain `search` or `relevant`
/// (``XKCDSearch/Search/Invocation/init(plainArguments:command:)``) before ArgumentParser is asked
/// anything, the rest through ArgumentParser.
///
/// Only the REPL runs as a Swift task (it awaits its line editor and the indexer); every other
/// command is synchronous and runs on the main thread, which spares them the start of Swift's
/// task machinery that `AsyncParsableCommand.main()` would pay for all of them.
@main
enum Entry {
    static func main() {
        StandardStreams.takeClosedStandardDescriptors()
        StandardStreams.reportWriteErrorsAtExit()
        runRoleNamedByArgumentZero()
        do {
            let arguments = try withImpliedCommand(
                GlobalOptions.movedAfterTheCommand(Array(CommandLine.arguments.dropFirst())))
            if let name = arguments.first, let plain = XKCDSearch.Search.Invocation.PlainCommand(rawValue: name),
                let invocation = XKCDSearch.Search.Invocation(
                    plainArguments: Array(arguments.dropFirst()), command: plain)
            {
                try invocation.runAsProcess(plain)
            }
            var command: any ParsableCommand
            do {
                command = try XKCDSearch.parseAsRoot(arguments)
            } catch {
                throw explained(error, of: arguments)
            }
            if command is any AsyncParsableCommand { runAsTask(ParsedCommand(command: command)) }
            if let search = command as? XKCDSearch.Search { try search.invocation.runAsProcess() }
            if let relevant = command as? XKCDSearch.Relevant { try relevant.invocation.runAsProcess(.relevant) }
            try command.run()
            // Before `exit`, whose other handlers may flush (and drop) what could not be written.
            StandardStreams.flush()
        } catch {
            Terminal.exit(XKCDSearch.self, withError: error)
        }
    }

    /// The command a first word that names none implies, as other xkcd tools and the REPL take
    /// them: a comic (`327`, `#327`, a link to it) is shown, other words are searched
    /// (`xkcd-search bobby tables`). A word near a command's name is taken as a mistyped
    /// command, not as a search: `serch` gets "did you mean 'search'?", as does `fav ad`.
    /// `help` is for a command's help only.
    private static func withImpliedCommand(_ arguments: [String]) throws -> [String] {
        guard let word = arguments.first, !word.hasPrefix("-") else { return arguments }
        let commands = XKCDSearch.configuration.subcommands
        if word == "help" {
            let named = arguments.dropFirst().prefix { !$0.hasPrefix("-") }
            var command: any ParsableCommand.Type = XKCDSearch.self
            for name in named {
                guard let sub = command.configuration.subcommands.first(where: { names(of: $0).contains(name) }) else {
                    throw unknownCommand(name, among: command.configuration.subcommands)
                }
                command = sub
            }
            return arguments
        }
        if let command = commands.first(where: { names(of: $0).contains(word) }) {
            let subcommands = command.configuration.subcommands
            if let next = arguments.dropFirst().first, !subcommands.isEmpty, !next.hasPrefix("-"),
                !subcommands.contains(where: { names(of: $0).contains(next) })
            {
                throw unknownCommand(next, among: subcommands, of: word)
            }
            return arguments
        }
        if let meant = Spelling.nearest(to: word, among: commands.flatMap(names)) {
            throw ValidationError("unknown command \(quoted(word)); did you mean '\(meant)'?")
        }
        let words = arguments.prefix { $0 != "--" && !$0.hasPrefix("-") }
        if words.count == 1, (try? ComicReference(parsing: word)) != nil { return ["show"] + arguments }
        return ["search"] + arguments
    }

    private static func names(of command: any ParsableCommand.Type) -> [String] {
        [command.configuration.commandName].compactMap { $0 } + command.configuration.aliases
    }

    private static func unknownCommand(
        _ word: String, among commands: [any ParsableCommand.Type], of parent: String? = nil
    )
        -> ValidationError
    {
        let kind = parent.map { "'\($0)' command" } ?? "command"
        let meant = Spelling.nearest(to: word, among: commands.flatMap(names))
        return ValidationError("unknown \(kind) \(quoted(word))" + (meant.map { "; did you mean '\($0)'?" } ?? ""))
    }

    /// A usage error said in terms of what was most likely meant: a word to leave out of a search
    /// (`-tables`), or a negative page, page size or timeout, which ArgumentParser reads as an
    /// option (`--page -1` would be "missing value for '--page'").
    private static func explained(_ error: any Error, of arguments: [String]) -> any Error {
        let message = XKCDSearch.message(for: error)
        let words = arguments.dropFirst().prefix { $0 != "--" }
        for (option, value) in zip(words, words.dropFirst())
        where ["--page", "--limit"].contains(option) && Int(value).map({ $0 < 0 }) == true {
            return ValidationError("\(option) must be 1 or more, not \(value)")
        }
        for (option, value) in zip(words, words.dropFirst())
        where option == "--timeout" && Double(value).map({ $0 < 0 }) == true {
            return IndexOptions.badTimeout(value)
        }
        if arguments.first == "search",
            let word = words.first(where: { $0.count > 1 && $0.hasPrefix("-") && !$0.hasPrefix("--") && Int($0) == nil }
            ),
            message.contains("'\(word)'")
        {
            // The words as typed, without the options and the values of those that take one.
            var query: [String] = []
            var skipsValue = false
            for argument in words {
                if skipsValue {
                    skipsValue = false
                } else if argument.hasPrefix("--") {
                    skipsValue = ["--db", "--color", "--limit", "--page"].contains(argument)
                } else {
                    query.append(argument)
                }
            }
            return ValidationError(
                "\(quoted(word)) is not an option: to leave a word out, put the query after --, as in 'xkcd-search search -- \(query.joined(separator: " "))'"
            )
        }
        return error
    }

    /// Runs `command` as `AsyncParsableCommand.main()` would: as a task on the global executor,
    /// the main thread handed to Dispatch; exits when the task ends.
    /// The one executable is also the indexer, the image drawer and the server, each run as a
    /// process of its own with argv[0] naming it (``SiblingExecutable``; `make install` installs
    /// no links by those names). Any other name is `xkcd-search` itself.
    private static func runRoleNamedByArgumentZero() {
        let name = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? ""
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch name {
        case IndexRole.name: runAsTask { await IndexRole.main(arguments) }
        case ServeRole.name: runAsTask { await ServeRole.main(arguments) }
        case ImageRole.name:
            ImageRole.main(arguments)
            exit(0)
        default: return
        }
    }

    /// Runs an async role on the main actor, then ends the process as an `async` main would.
    private static func runAsTask(_ main: @escaping @MainActor @Sendable () async -> Void) -> Never {
        Task { @MainActor in
            await main()
            exit(0)
        }
        dispatchMain()
    }

    private static func runAsTask(_ command: ParsedCommand) -> Never {
        Task {
            do {
                try await command.run()
                StandardStreams.flush()
                XKCDSearch.exit()
            } catch {
                Terminal.exit(XKCDSearch.self, withError: error)
            }
        }
        dispatchMain()
    }
}
