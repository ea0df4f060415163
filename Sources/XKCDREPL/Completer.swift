import XKCDKit

/// Tab completion as a pure function of the line and the cursor.
///
/// The first word completes to commands and shortcuts (or, when it starts none, as a query
/// word); after a command, to its subcommands and
/// options; in a query, to field and filter names (`title:`, `year:`…), to tag names after
/// `tag:`, and to indexed words by prefix, the most frequent first. Tag names also follow
/// `fav tag N`, `fav untag N`, `fav add N`, `tag`, `untag` and `--tag`.
///
/// ```swift
/// completer.completions(for: "search tag:sq", cursor: 13)   // ["tag:sql"]
/// completer.completions(for: "fav ta", cursor: 6)           // ["tag", "tags"]
/// ```
public struct Completer: Sendable {
    /// Words a line may start with besides the commands.
    public static let shortcuts = ["more", "n", "p", "r", "l", "e", "tag", "untag", ":help", ":quit"]
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

    public init(root: CommandSpec, library: Library?) {
        self.root = root
        self.library = library
    }

    /// Replacements for the word that ends at `cursor` (counted in Unicode scalars).
    ///
    /// - Returns: full words that start with what was typed; empty when there is nothing to offer.
    public func completions(for line: String, cursor: Int) -> [String] {
        let before = String(String.UnicodeScalarView(line.unicodeScalars.prefix(max(0, cursor))))
        var words = before.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let current = before.last.map { $0 == " " || $0 == "\t" } ?? true ? "" : words.removeLast()
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
        if current.hasPrefix("-") {
            return spec.options.filter { $0.hasPrefix(current) }
        }
        if !spec.subcommands.isEmpty, depth == words.count {
            return spec.subcommands.flatMap { [$0.name] + $0.aliases }.filter { $0.hasPrefix(current.lowercased()) }.sorted()
        }
        switch path {
        case ["fav", "tag"], ["fav", "untag"], ["fav", "add"]:
            return tags(current)
        case ["search"]:
            return query(current)
        default:
            return []
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
        return (try? library.database.commonWords(startingWith: prefix, limit: wordLimit)) ?? []
    }

    private func unique(_ words: [String]) -> [String] {
        var seen = Set<String>()
        return words.filter { seen.insert($0).inserted }
    }
}
