/// `text` as a message quotes a value the user or a file gave: in single quotes, cut after
/// `limit` characters with "…", and every control that could act on a terminal or split the
/// line written visibly (`\n`, `\t`, `\u{1b}`, `\u{202e}`…).
///
/// Only the first `limit` scalars are read, so a 50 MB value costs what a short one does.
///
/// ```swift
/// quoted("a\u{1B}]0;pwned\u{7}")   // 'a\u{1b}]0;pwned\u{7}'
/// ```
public func quoted(_ text: String, limit: Int = 40) -> String {
    "'" + escaped(text, limit: limit) + "'"
}

/// `text` as ``quoted(_:limit:)`` writes it, without the quotes: for paths.
public func escaped(_ text: String, limit: Int = 200) -> String {
    var out = ""
    var count = 0
    for scalar in text.unicodeScalars {
        if count == limit {
            out += "…"
            break
        }
        count += 1
        switch scalar.value {
        case 0x0A: out += "\\n"
        case 0x09: out += "\\t"
        case 0x0D: out += "\\r"
        case 0x00..<0x20, 0x7F..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out
}
