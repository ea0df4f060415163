/// Words written with symbols: `c++`, `c#`, `f#`, `AT&T`, `.net`, `node.js`, `802.11`, `i/o`.
///
/// FTS5's unicode61 tokenizer drops the symbols, so `c++` is the letter `c` (in 300 comics,
/// USB-C and M.C. Hammer among them) and `AT&T` is `at` and `t`. The ranking index keeps each
/// such word whole, lowercased, as a term of its own beside the tokens (no token holds these
/// symbols, so the two cannot meet), and a query word that is one is looked up whole: the
/// comics that write it rank, not those holding only its parts.
///
/// A symbol word is a run of ASCII letters, digits and `+ # & . /` that holds a symbol between
/// or after letters or digits: letters or digits joined by `&`, `.` or `/` (`at&t`, `node.js`,
/// `802.11`, `i/o`, `e.g`), a leading `.` before a letter (`.net`), or one to two trailing `+`
/// or a trailing `#` (`c++`, `g++`, `c#`). Dots and slashes that end a sentence or a path are not
/// part of it.
public enum SymbolWords: Sendable {
    /// Longer runs are addresses and paths, not words anyone searches as one.
    static let maximumLength = 24
    static let maximumParts = 4

    /// Calls `body` with each symbol word of `text`, lowercased, in order.
    public static func forEach(in text: String, _ body: (String) -> Void) {
        var bytes = Array(text.utf8)
        forEach(inBytes: &bytes) { body(String(decoding: $0, as: UTF8.self)) }
    }

    /// The symbol word that `word` is as a whole (lowercased), or nil when it is none: `C++` is
    /// `c++`, `node.js.` is `node.js`; `tables` and `c++code` are none.
    public static func whole(_ word: String) -> String? {
        var found: [String] = []
        var bytes = Array(word.utf8)
        forEach(inBytes: &bytes) { found.append(String(decoding: $0, as: UTF8.self)) }
        // Nothing but punctuation around it: `c++,` is `c++`, `x,c++` is two words.
        guard found.count == 1, let symbolWord = found.first,
            word.utf8.filter(isAlphanumeric).count == symbolWord.utf8.filter(isAlphanumeric).count
        else { return nil }
        return symbolWord
    }

    /// Calls `body` with each symbol word of the UTF-8 `bytes`, lowercased in place.
    static func forEach(inBytes bytes: inout [UInt8], _ body: (ArraySlice<UInt8>) -> Void) {
        var index = 0
        let count = bytes.count
        while index < count {
            guard isRunByte(bytes[index]) else {
                index += 1
                continue
            }
            // A run starts after a byte that is not part of one (so `é.net` has no `.net`).
            let start = index
            while index < count, isRunByte(bytes[index]) { index += 1 }
            if start > 0, bytes[start - 1] >= 0x80 { continue }
            if index < count, bytes[index] >= 0x80 { continue }
            var lower = start
            var upper = index
            // A sentence's or a path's end, a path's start.
            while upper > lower, bytes[upper - 1] == UInt8(ascii: ".") || bytes[upper - 1] == UInt8(ascii: "/") {
                upper -= 1
            }
            while lower < upper, bytes[lower] == UInt8(ascii: "/") { lower += 1 }
            guard upper - lower >= 2, upper - lower <= maximumLength else { continue }
            for position in lower..<upper
            where bytes[position] >= UInt8(ascii: "A") && bytes[position] <= UInt8(ascii: "Z") {
                bytes[position] += 32
            }
            if isSymbolWord(bytes[lower..<upper]) { body(bytes[lower..<upper]) }
        }
    }

    private static func isSymbolWord(_ run: ArraySlice<UInt8>) -> Bool {
        var body = run
        // `c++`, `g++`, `c#`: one word of letters or digits with the suffix.
        if body.last == UInt8(ascii: "#") || body.last == UInt8(ascii: "+") {
            if body.last == UInt8(ascii: "+") {
                body = body.dropLast()
                if body.last == UInt8(ascii: "+") { body = body.dropLast() }
            } else {
                body = body.dropLast()
            }
            return !body.isEmpty && body.count <= 10 && body.allSatisfy(isAlphanumeric)
        }
        // `.net`: a leading dot before a letter.
        var hasSymbol = false
        if body.first == UInt8(ascii: ".") {
            body = body.dropFirst()
            guard let first = body.first, isLetter(first) else { return false }
            hasSymbol = true
        }
        // Parts of letters or digits joined by single `&`, `.` or `/`.
        var parts = 1
        var previousWasJoin = true
        for byte in body {
            if isAlphanumeric(byte) {
                previousWasJoin = false
            } else if byte == UInt8(ascii: "&") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") {
                guard !previousWasJoin else { return false }
                previousWasJoin = true
                hasSymbol = true
                parts += 1
            } else {
                return false
            }
        }
        return hasSymbol && !previousWasJoin && parts <= maximumParts
    }

    private static func isRunByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "&")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/")
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
