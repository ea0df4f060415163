import XKCDKit

/// A command as the command line declares it: its names, options and subcommands, for dispatch
/// and completion.
public struct CommandSpec: Sendable, Hashable {
    public var name: String
    public var aliases: [String]
    /// Spelled as typed: `--json`, `-v`.
    public var options: [String]
    public var subcommands: [CommandSpec]

    public init(name: String, aliases: [String] = [], options: [String] = [], subcommands: [CommandSpec] = []) {
        self.name = name
        self.aliases = aliases
        self.options = options
        self.subcommands = subcommands
    }

    /// The subcommand called `word` (by name or alias, in any case), or nil.
    public func subcommand(named word: String) -> CommandSpec? {
        let word = word.lowercased()
        return subcommands.first { $0.name == word || $0.aliases.contains(word) }
    }
}

/// A search the session runs itself, so that `more` and Enter can page through it.
public struct SearchRequest: Sendable {
    public var text: String
    public var limit: Int
    public var page: Int
    /// Lays out a page of results as the command line would; the second argument is the hint
    /// for the next page.
    public var render: @Sendable (SearchResults, String) -> String

    public init(text: String, limit: Int = 10, page: Int = 1, render: @escaping @Sendable (SearchResults, String) -> String) {
        self.text = text
        self.limit = limit
        self.page = page
        self.render = render
    }
}

/// What a line of arguments turned into, as the command line's parser decided.
public enum REPLCommand: Sendable {
    /// A search the session runs and pages.
    case search(SearchRequest)
    /// Any other command; it prints as it does on the command line.
    case run(@Sendable () async throws -> Void)
    /// A command that stops by itself when cancelled (the indexer, a child process): after
    /// Ctrl-C the prompt comes back once it has, so nothing it prints lands after the prompt.
    case runUntilStopped(@Sendable () async throws -> Void)
    /// Text to print as it is, such as a help page.
    case output(String)
}

/// What the command line gives the REPL, so that the REPL never imports the executable.
public struct CommandHost: Sendable {
    /// The root command: its subcommands are what a line may start with.
    public var root: CommandSpec
    /// Parses arguments (without the program name) with the command line's parser.
    /// - Throws: ``REPLError/command(_:)`` with a one-line message.
    public var parse: @Sendable ([String]) throws -> REPLCommand
    /// What to say about an error a command threw: nil when the command printed it already.
    public var describe: @Sendable (any Error) -> String?
    /// Lays out the results of a bare query.
    public var renderSearch: @Sendable (SearchResults, String) -> String

    public init(
        root: CommandSpec, parse: @escaping @Sendable ([String]) throws -> REPLCommand,
        describe: @escaping @Sendable (any Error) -> String?,
        renderSearch: @escaping @Sendable (SearchResults, String) -> String
    ) {
        self.root = root
        self.parse = parse
        self.describe = describe
        self.renderSearch = renderSearch
    }
}
