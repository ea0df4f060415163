import FoundationEssentials
import XKCDFiles
import XKCDKit

/// Splits a typed line into arguments the way a POSIX shell does, without expansions.
///
/// Spaces and tabs separate words; `'…'` keeps everything literally; `"…"` keeps everything
/// but lets a backslash escape `"`, `\`, `$` and `` ` ``; outside quotes a backslash escapes the
/// next character. `''` is an empty argument. An unquoted `~` that starts a word (or the value
/// of `--option=`) and is alone or followed by `/` stands for the home directory, as in a shell,
/// so that the paths Tab completes work.
///
/// ```swift
/// try ArgumentTokenizer.split(#"fav add 327 "two words" it\'s"#)
/// // ["fav", "add", "327", "two words", "it's"]
/// ```
public enum ArgumentTokenizer: Sendable {
    /// - Parameter home: what `~` stands for; nil leaves it as it is.
    /// - Throws: ``REPLError/unclosedQuote(_:)`` when a quote is left open.
    public static func split(
        _ line: String, home: String? = environmentVariable("HOME")
    ) throws(REPLError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        /// Where an unquoted `~` that may stand for the home directory is in `word`.
        var tilde: Int?
        func endWord() {
            if inWord { words.append(expandingTilde(in: word, at: tilde, home: home)) }
            word = ""
            inWord = false
            tilde = nil
        }
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\n", "\r":
                endWord()
            case "'":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "'" {
                        closed = true
                        break
                    }
                    word.append(next)
                }
                guard closed else { throw .unclosedQuote("'") }
            case "\"":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "\"" {
                        closed = true
                        break
                    }
                    if next == "\\" {
                        guard let escaped = iterator.next() else { break }
                        if !["\"", "\\", "$", "`"].contains(escaped) { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
                guard closed else { throw .unclosedQuote("\"") }
            case "\\":
                inWord = true
                word.append(iterator.next() ?? "\\")
            default:
                let startsValue =
                    word.hasPrefix("--") && word.hasSuffix("=")
                    && word.firstIndex(of: "=") == word.index(before: word.endIndex)
                if character == "~", !inWord || startsValue { tilde = word.count }
                inWord = true
                word.append(character)
            }
        }
        endWord()
        return words
    }

    /// `word` with the `~` at character `offset` replaced by `home` when it is alone or before a `/`.
    private static func expandingTilde(in word: String, at offset: Int?, home: String?) -> String {
        guard let offset, let home, !home.isEmpty else { return word }
        let start = word.index(word.startIndex, offsetBy: offset)
        let after = word.index(after: start)
        guard after == word.endIndex || word[after] == "/" else { return word }
        return word[..<start] + home + word[after...]
    }
}
