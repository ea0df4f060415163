import XKCDKit

/// A command as the command line declares it: its names, options and subcommands, for dispatch
/// and completion.
public struct CommandSpec: Sendable, Hashable {
    public var name: String
    public var aliases: [String]
    /// Spelled as typed: `--json`, `-v`.
    public var options: [String]
    /// The options that take a value, spelled as typed, with what that value completes to
    /// (`--color`: auto, always, never).
    public var optionValues: [String: ValueCompletion]
    /// What each positional argument completes to, in order (`fav import`'s file: file names).
    public var arguments: [ValueCompletion]
    public var subcommands: [CommandSpec]

    public init(
        name: String, aliases: [String] = [], options: [String] = [], optionValues: [String: ValueCompletion] = [:],
        arguments: [ValueCompletion] = [], subcommands: [CommandSpec] = []
    ) {
        self.name = name
        self.aliases = aliases
        self.options = options
        self.optionValues = optionValues
        self.arguments = arguments
        self.subcommands = subcommands
    }

    /// The subcommand called `word` (by name or alias, in any case), or nil.
    public func subcommand(named word: String) -> CommandSpec? {
        let word = word.lowercased()
        return subcommands.first { $0.name == word || $0.aliases.contains(word) }
    }
}

/// What an option's value or a positional argument completes to.
public enum ValueCompletion: Sendable, Hashable {
    /// Nothing to offer (a number, a URL, free text).
    case none
    /// One of these words.
    case values([String])
    /// File names (directories too, to walk into), those ending in one of `extensions` when
    /// there are any.
    case files(extensions: [String])
    /// Directory names.
    case directories
}

/// A search the session runs itself, so that `more` and Enter can page through it: the request,
/// and how its pages are shown.
public struct SessionSearch: Sendable {
    public var request: SearchRequest
    /// Lays out a page of results as the command line would; the second argument is the hint
    /// for the next page.
    public var render: @Sendable (SearchResults, String) -> String
    /// Whether a page taller than the screen goes through the host's pager (`--no-pager` says no).
    public var isPaged: Bool

    /// - Parameters:
    ///   - request: the search.
    ///   - isPaged: whether a tall page goes through the host's pager.
    ///   - render: lays out a page of results, with the hint for the next one.
    public init(
        _ request: SearchRequest, isPaged: Bool = true, render: @escaping @Sendable (SearchResults, String) -> String
    ) {
        self.request = request
        self.isPaged = isPaged
        self.render = render
    }
}

/// What a line of arguments turned into, as the command line's parser decided.
public enum REPLCommand: Sendable {
    /// A search the session runs and pages.
    case search(SessionSearch)
    /// Any other command; it prints as it does on the command line, and what it prints goes
    /// through the host's pager when it is taller than the screen.
    case run(@Sendable () async throws -> Void)
    /// A command whose output goes straight to the terminal, never to the pager: one that hands
    /// the terminal to another program (a browser), or typed with `--no-pager`.
    case runOnTerminal(@Sendable () async throws -> Void)
    /// A command that stops by itself when cancelled (the indexer, a child process): after
    /// Ctrl-C the prompt comes back once it has, so nothing it prints lands after the prompt.
    /// Its output goes straight to the terminal (a progress bar is live).
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
    /// Pages output taller than the screen; nil prints everything as it comes (not a terminal,
    /// `--no-pager`, `PAGER=cat`, or a script in tests).
    public var pager: (any ScreenPager)?

    public init(
        root: CommandSpec, parse: @escaping @Sendable ([String]) throws -> REPLCommand,
        describe: @escaping @Sendable (any Error) -> String?,
        renderSearch: @escaping @Sendable (SearchResults, String) -> String,
        pager: (any ScreenPager)? = nil
    ) {
        self.root = root
        self.parse = parse
        self.describe = describe
        self.renderSearch = renderSearch
        self.pager = pager
    }
}

/// Shows what the session and its commands print, through a pager when it is taller than the
/// screen, as the command line does with long output. The command line gives it
/// (``CommandHost/pager``): it knows the terminal and which pager the user chose.
public protocol ScreenPager: Sendable {
    /// Starts collecting what commands print to standard output; false when it cannot, and then
    /// their output goes to the screen as it comes.
    func startCollecting() -> Bool
    /// Stops collecting and shows what was collected: through the pager when `paging` and it is
    /// taller than the screen, else as it is. The pager has quit when this returns.
    func finishCollecting(paging: Bool)
    /// Shows `text` (a page of results, a help page) the same way.
    func show(_ text: String)
}
