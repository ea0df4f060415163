import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDKit

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
        subcommands: [Index.self, Search.self, Stats.self, Show.self, Explain.self, Next.self, Prev.self, Latest.self, Random.self, Link.self, Open.self, Related.self, Fav.self, About.self, Repl.self]
    )
}

/// Runs the command line: a plain `search` (``XKCDSearch/Search/Request/init(plainArguments:)``)
/// before ArgumentParser is asked anything, the rest through ArgumentParser.
///
/// Only the REPL runs as a Swift task (it awaits its line editor and the indexer); every other
/// command is synchronous and runs on the main thread, which spares them the start of Swift's
/// task machinery that `AsyncParsableCommand.main()` would pay for all of them.
@main
enum Entry {
    static func main() {
        do {
            let arguments = GlobalOptions.movedAfterTheCommand(Array(CommandLine.arguments.dropFirst()))
            if arguments.first == "search", let request = XKCDSearch.Search.Request(plainArguments: Array(arguments.dropFirst())) {
                try request.runAsProcess()
            }
            try checkCommandName(arguments.first)
            var command: any ParsableCommand
            do {
                command = try XKCDSearch.parseAsRoot(arguments)
            } catch {
                throw explained(error, of: arguments)
            }
            if command is any AsyncParsableCommand { runAsTask(ParsedCommand(command: command)) }
            if let search = command as? XKCDSearch.Search { try search.request.runAsProcess() }
            try command.run()
        } catch {
            Terminal.exit(XKCDSearch.self, withError: error)
        }
    }

    /// A first word near a command's name but not one is taken as a mistyped command, not as
    /// the arguments ArgumentParser would call unexpected: `serch` gets "did you mean 'search'?".
    private static func checkCommandName(_ word: String?) throws {
        guard let word, !word.hasPrefix("-"), word != "help" else { return }
        let names = XKCDSearch.configuration.subcommands.compactMap { $0.configuration.commandName }
        if let meant = Spelling.nearest(to: word, among: names) {
            throw ValidationError("unknown command \(quoted(word)); did you mean '\(meant)'?")
        }
    }

    /// A usage error said in terms of what was most likely meant: a word to leave out of a search
    /// (`-tables`), or a negative page or page size, which ArgumentParser reads as an option
    /// (`--page -1` would be "missing value for '--page'").
    private static func explained(_ error: any Error, of arguments: [String]) -> any Error {
        let message = XKCDSearch.message(for: error)
        let words = arguments.dropFirst().prefix { $0 != "--" }
        for (option, value) in zip(words, words.dropFirst()) where ["--page", "--limit"].contains(option) && Int(value).map({ $0 < 0 }) == true {
            return ValidationError("\(option) must be 1 or more, not \(value)")
        }
        if arguments.first == "search",
            let word = words.first(where: { $0.count > 1 && $0.hasPrefix("-") && !$0.hasPrefix("--") && Int($0) == nil }),
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
                "\(quoted(word)) is not an option: to leave a word out, put the query after --, as in 'xkcd-search search -- \(query.joined(separator: " "))'")
        }
        return error
    }

    /// Runs `command` as `AsyncParsableCommand.main()` would: as a task on the global executor,
    /// the main thread handed to Dispatch; exits when the task ends.
    private static func runAsTask(_ command: ParsedCommand) -> Never {
        Task {
            do {
                try await command.run()
                XKCDSearch.exit()
            } catch {
                Terminal.exit(XKCDSearch.self, withError: error)
            }
        }
        dispatchMain()
    }
}
