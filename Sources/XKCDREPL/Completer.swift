import XKCDKit

/// Tab completion as a pure function of the line and the cursor (and of the directories it
/// lists, through ``FileNames``).
///
/// The first word completes to commands and shortcuts (or, when it starts none, as a query
/// word); after a command, to its subcommands and options; after an option that takes one of a
/// few values, to those values (`--color` to auto, always, never), and after one that takes a
/// file, to file names, as a positional file argument does (`fav import`); in a query, to field
/// and filter names (`title:`, `year:`…), to tag names after `tag:`, and to indexed words by
/// prefix, the most frequent first. Tag names also follow `fav tag N`, `fav untag N`,
/// `fav add N`, `tag`, `untag` and `--tag`. No list offers a word twice.
///
/// ```swift
/// completer.completions(for: "search tag:sq", cursor: 13)   // ["tag:sql"]
/// completer.completions(for: "fav ta", cursor: 6)           // ["tag", "tags"]
/// completer.completions(for: "search --color a", cursor: 16)   // ["always", "auto"]
/// ```
public struct Completer: Sendable {
    /// Words a line may start with besides the commands.
    public static let shortcuts = [
        "more", "n", "p", "r", "l", "e", "tag", "untag", ":help", ":quit", ":relevant", ":identify",
    ]
    /// Field and filter names of the query language.
    public static let queryKeys = [
        "title:", "alt:", "transcript:", "explanation:", "num:", "year:", "date:", "before:", "after:",
        "is:fav", "tag:", "sort:",
    ]
    static let textFields: Set<String> = ["title", "alt", "transcript", "explanation"]
    static let sortValues = ["date", "-date", "num", "-num"]

    public var root: CommandSpec
    /// Where tags and the vocabulary come from; nil completes names only.
    public var library: Library?
    /// How many indexed words to offer at most.
    public var wordLimit = 30
    /// Where file names come from.
    public var fileNames: FileNames

    public init(root: CommandSpec, library: Library?, fileNames: FileNames = .system) {
        self.root = root
        self.library = library
        self.fileNames = fileNames
    }

    /// Replacements for the word that ends at `cursor` (counted in Unicode scalars).
    ///
    /// - Returns: full words that start with what was typed, each once; empty when there is
    ///   nothing to offer.
    public func completions(for line: String, cursor: Int) -> [String] {
        unique(candidates(for: line, cursor: cursor))
    }

    private func candidates(for line: String, cursor: Int) -> [String] {
        let before = String(String.UnicodeScalarView(line.unicodeScalars.prefix(max(0, cursor))))
        var words = before.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let current = before.last.map { $0 == " " || $0 == "\t" } ?? true ? "" : words.removeLast()
        // `:identify PATH` completes as `identify PATH` does: file names.
        if words.first?.lowercased() == ":identify" { words[0] = "identify" }
        guard let first = words.first else {
            let names = root.subcommands.flatMap { [$0.name] + $0.aliases } + Self.shortcuts
            let commands = names.filter { $0.hasPrefix(current.lowercased()) }.sorted()
            // Commands win; a first word that starts no command begins a query.
            return commands.isEmpty && !current.isEmpty ? query(current) : commands
        }
        var spec = root
        var depth = 0
        while depth < words.count, let sub = spec.subcommand(named: words[depth]) {
            spec = sub
            depth += 1
        }
        let path = words.prefix(depth).map { $0.lowercased() }
        if depth == 0 {
            // A shortcut or a bare query.
            return ["tag", "untag"].contains(first.lowercased()) ? tags(current) : query(current)
        }
        if words.last == "--tag" { return tags(current) }
        // An option's value, after the option (`--color <Tab>`) or glued to it (`--color=a<Tab>`).
        if current.hasPrefix("--"), let equals = current.firstIndex(of: "="),
            let kind = spec.optionValues[String(current[..<equals])]
        {
            let option = String(current[...equals])
            return values(kind, String(current[current.index(after: equals)...])).map { option + $0 }
        }
        if depth < words.count, let option = words.last, let kind = spec.optionValues[option] {
            return values(kind, current)
        }
        if current.hasPrefix("-") {
            return spec.options.filter { $0.hasPrefix(current) }
        }
        if !spec.subcommands.isEmpty, depth == words.count {
            return spec.subcommands.flatMap { [$0.name] + $0.aliases }.filter { $0.hasPrefix(current.lowercased()) }
                .sorted()
        }
        switch path {
        case ["fav", "tag"], ["fav", "untag"], ["fav", "add"]:
            return tags(current)
        case ["search"]:
            return query(current)
        default:
            let position = Self.positionalIndex(after: words[depth...], optionsTakingValues: spec.optionValues)
            return position < spec.arguments.count ? values(spec.arguments[position], current) : []
        }
    }

    /// Which positional argument the next word is: the words typed after the command, not
    /// counting options and the values of those that take one.
    static func positionalIndex(after words: ArraySlice<String>, optionsTakingValues: [String: ValueCompletion]) -> Int
    {
        var count = 0
        var skipsValue = false
        var afterTerminator = false
        for word in words {
            if skipsValue {
                skipsValue = false
            } else if afterTerminator || !word.hasPrefix("-") || word == "-" {
                count += 1
            } else if word == "--" {
                afterTerminator = true
            } else {
                skipsValue = optionsTakingValues[word] != nil
            }
        }
        return count
    }

    /// The completions of a value of the given kind.
    func values(_ kind: ValueCompletion, _ word: String) -> [String] {
        switch kind {
        case .none: []
        case .values(let values): values.filter { $0.hasPrefix(word) }.sorted()
        case .files(let extensions): fileNames.completions(of: word, extensions: extensions)
        case .directories: fileNames.completions(of: word, directoriesOnly: true)
        }
    }

    /// Completions of one word of a query.
    func query(_ word: String) -> [String] {
        var prefix = ""
        var rest = Substring(word)
        while let first = rest.first, first == "-" || first == "(" {
            prefix.append(first)
            rest = rest.dropFirst()
        }
        if let colon = rest.firstIndex(of: ":") {
            let key = rest[..<colon].lowercased()
            let value = String(rest[rest.index(after: colon)...])
            let candidates: [String]
            switch key {
            case "tag": candidates = tagNames(value)
            case "is": candidates = ["fav"].filter { $0.hasPrefix(value.lowercased()) }
            case "sort": candidates = Self.sortValues.filter { $0.hasPrefix(value.lowercased()) }
            case _ where Self.textFields.contains(key): candidates = value.isEmpty ? [] : vocabulary(value)
            default: candidates = []
            }
            return candidates.map { prefix + rest[...colon] + $0 }
        }
        let keys = Self.queryKeys.filter { $0.hasPrefix(rest.lowercased()) }
        let words = rest.isEmpty ? [] : vocabulary(String(rest))
        return unique(keys + words).map { prefix + $0 }
    }

    func tags(_ word: String) -> [String] { tagNames(word) }

    private func tagNames(_ prefix: String) -> [String] {
        let counts = (try? library?.tagCounts()) ?? []
        return counts.map(\.tag).filter { $0.hasPrefix(prefix.lowercased()) }.sorted()
    }

    private func vocabulary(_ prefix: String) -> [String] {
        guard let library else { return [] }
        return (try? library.commonWords(startingWith: prefix, limit: wordLimit)) ?? []
    }

    private func unique(_ words: [String]) -> [String] {
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }
}
