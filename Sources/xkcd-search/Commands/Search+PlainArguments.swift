import XKCDCommandLine
import XKCDKit

extension XKCDSearch.Search.Invocation {
    /// The commands read by ``init(plainArguments:command:)``.
    enum PlainCommand: String {
        /// `search`, which reads all the options below.
        case search
        /// `relevant`, which reads no `--exact`, `--oneline` nor `--page`, and shows 5 comics
        /// unless told.
        case relevant

        /// How many comics the command shows unless told.
        var defaultLimit: Int {
            switch self {
            case .search: SearchRequest.defaultLimit
            case .relevant: RelevantRequest.defaultLimit
            }
        }
    }

    /// Reads the plainest `search` (or `relevant`) arguments (words, `--db`, `--json`, `--exact`,
    /// `--oneline`, `--no-pager`, `--color`, `--limit`, `--page`, `--verbose`, `--`) as
    /// ArgumentParser reads them, or returns nil for anything else, which ArgumentParser then
    /// reads: help, other spellings, a value it would refuse, an option the command does not take.
    ///
    /// Why a second reader: ArgumentParser's first parse in a process builds a description of
    /// every option and looks up protocol conformances across the whole binary, which is more
    /// work than the search itself (a plain search process does 2.7 times the work without this
    /// reader; docs/performance.md). ArgumentParser still defines, documents and checks every
    /// option, and a test holds this reader to its results.
    init?(plainArguments arguments: [String], command: PlainCommand = .search) {
        words = []
        limit = command.defaultLimit
        var index = arguments.startIndex
        // Options read so far: a repeat is left to ArgumentParser.
        var seen: Set<String> = []
        func firstTime(_ option: String) -> Bool {
            seen.insert(option).inserted
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
            // A lone `-` is standard input, a word as ArgumentParser reads it.
            if afterTerminator || !argument.hasPrefix("-") || argument == "-" {
                words.append(argument)
            } else {
                switch argument {
                case "--": afterTerminator = true
                case "--json":
                    guard firstTime(argument) else { return nil }
                    json = true
                case "--exact":
                    guard command == .search, firstTime(argument) else { return nil }
                    exact = true
                case "--oneline":
                    guard command == .search, firstTime(argument) else { return nil }
                    oneline = true
                case "--no-pager":
                    guard command == .search, firstTime(argument) else { return nil }
                    paging = false
                case "-v", "--verbose":
                    guard firstTime("--verbose") else { return nil }
                    verbose = true
                case "--db":
                    guard let path = value(of: argument), GlobalOptions.problem(withDatabase: path) == nil else {
                        return nil
                    }
                    database = path
                case "--color":
                    guard let name = value(of: argument), let choice = Terminal.ColorChoice(rawValue: name) else {
                        return nil
                    }
                    color = choice
                case "--limit":
                    guard let number = value(of: argument).flatMap({ Int($0) }),
                        SearchRequest.limits.contains(number)
                    else { return nil }
                    limit = number
                case "--page":
                    guard command == .search, let number = value(of: argument).flatMap({ Int($0) }), number >= 1
                    else { return nil }
                    page = number
                default: return nil
                }
            }
            index += 1
        }
        guard !words.isEmpty else { return nil }
    }
}
