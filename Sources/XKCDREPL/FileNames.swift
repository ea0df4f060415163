import Foundation
import XKCDFiles
import XKCDKit

/// File-name completion, as a shell does it: relative and absolute paths and `~/`, a directory
/// ending in `/` so that the next Tab walks into it, hidden files only when the typed name
/// starts with a dot.
///
/// The directories are read through ``list``, so that tests can give any tree; ``system`` reads
/// the real one.
///
/// ```swift
/// FileNames.system.completions(of: "~/Doc")   // ["~/Documents/"]
/// ```
public struct FileNames: Sendable {
    /// A name in a directory.
    public struct Entry: Sendable, Hashable {
        public var name: String
        public var isDirectory: Bool

        public init(name: String, isDirectory: Bool) {
            self.name = name
            self.isDirectory = isDirectory
        }
    }

    /// The entries of the directory at a path, nil when it cannot be read.
    public var list: @Sendable (String) -> [Entry]?
    /// What `~` stands for; nil when there is no home directory.
    public var home: String?
    /// Where relative paths start.
    public var currentDirectory: String

    public init(list: @escaping @Sendable (String) -> [Entry]?, home: String?, currentDirectory: String) {
        self.list = list
        self.home = home
        self.currentDirectory = currentDirectory
    }

    /// The file system, from this process's current directory and `$HOME`.
    public static var system: FileNames {
        FileNames(
            list: { path in
                guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return nil }
                return names.map { name in
                    var isDirectory: ObjCBool = false
                    _ = FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory)
                    return Entry(name: name, isDirectory: isDirectory.boolValue)
                }
            },
            home: environmentVariable("HOME").flatMap { $0.isEmpty ? nil : $0 },
            currentDirectory: FileManager.default.currentDirectoryPath)
    }

    /// The paths that complete `word`, sorted: the typed directory part kept as typed, each name
    /// with the characters the REPL's word splitting would break at escaped by a backslash.
    ///
    /// - Parameters:
    ///   - extensions: offer only files with one of these (directories always); all when empty.
    ///   - directoriesOnly: offer directories alone.
    public func completions(of word: String, extensions: [String] = [], directoriesOnly: Bool = false) -> [String] {
        if word == "~" { return home == nil ? [] : ["~/"] }
        let slash = word.lastIndex(of: "/")
        let typedDirectory = slash.map { String(word[...$0]) } ?? ""
        let prefix = slash.map { String(word[word.index(after: $0)...]) } ?? word
        let directory: String
        if typedDirectory.hasPrefix("~/") {
            guard let home else { return [] }
            directory = home + typedDirectory.dropFirst()
        } else if typedDirectory.hasPrefix("/") {
            directory = typedDirectory
        } else {
            directory = currentDirectory + "/" + typedDirectory
        }
        let entries = (list(directory) ?? []).filter { entry in
            guard entry.name.hasPrefix(prefix), prefix.hasPrefix(".") || !entry.name.hasPrefix(".") else {
                return false
            }
            if entry.isDirectory { return true }
            if directoriesOnly { return false }
            return extensions.isEmpty || extensions.contains { entry.name.hasSuffix("." + $0) }
        }
        return entries.map { typedDirectory + Self.escaped($0.name) + ($0.isDirectory ? "/" : "") }.sorted()
    }

    /// `name` as one word for ``ArgumentTokenizer``: blanks, quotes and backslashes escaped.
    static func escaped(_ name: String) -> String {
        var result = ""
        for character in name {
            if [" ", "\t", "'", "\"", "\\"].contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }
}
