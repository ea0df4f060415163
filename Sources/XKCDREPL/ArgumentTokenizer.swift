/// Splits a typed line into arguments the way a POSIX shell does, without expansions.
///
/// Spaces and tabs separate words; `'…'` keeps everything literally; `"…"` keeps everything
/// but lets a backslash escape `"`, `\`, `$` and `` ` ``; outside quotes a backslash escapes the
/// next character. `''` is an empty argument.
///
/// ```swift
/// try ArgumentTokenizer.split(#"fav add 327 "two words" it\'s"#)
/// // ["fav", "add", "327", "two words", "it's"]
/// ```
public enum ArgumentTokenizer {
    /// - Throws: ``REPLError/unclosedQuote(_:)`` when a quote is left open.
    public static func split(_ line: String) throws(REPLError) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            switch character {
            case " ", "\t", "\n", "\r":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "'" { closed = true; break }
                    word.append(next)
                }
                guard closed else { throw .unclosedQuote("'") }
            case "\"":
                inWord = true
                var closed = false
                while let next = iterator.next() {
                    if next == "\"" { closed = true; break }
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
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
