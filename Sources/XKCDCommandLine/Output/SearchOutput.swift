import FoundationEssentials
import XKCDKit

/// How search results are printed.
public enum SearchOutput: Sendable {
    public static func json(_ results: SearchResults) throws -> String {
        try JSONDocument.line(SearchResultsDocument(results))
    }

    /// `327<TAB>Exploits of a Mom<TAB>2007-10-10` a comic, nothing else: what fzf lists and
    /// `cut -f1` reads. Tabs and line breaks of a title are spaces, so each comic is one line.
    public static func oneline(_ results: SearchResults) -> String {
        results.results.map { result in
            let title = sanitized(result.title).map { $0 == "\t" || $0.isNewline ? " " : $0 }
            return "\(result.id)\t\(String(title))\t\(result.date)\n"
        }.joined()
    }

    /// - Parameter command: the command for the next page, asked for only when there is one.
    public static func text(_ results: SearchResults, color: Bool, width: Int, command: @autoclosure () -> String)
        -> String
    {
        let style = Style(enabled: color)
        var out = results.note.map { style.dim($0) + "\n\n" } ?? ""
        if let corrected = results.corrected {
            let (typed, shown) = (
                "\u{201C}\(sanitized(results.query))\u{201D}", "\u{201C}\(sanitized(corrected))\u{201D}"
            )
            // "No results" only when it is true: a misspelling may still find comics by its stem.
            let notice =
                results.typedQueryFound
                ? "showing results for \(shown) (--exact searches \(typed) as typed)"
                : "no results for \(typed); showing results for \(shown)"
            out += style.dim(notice) + "\n\n"
        } else if let suggestion = results.suggestion {
            out += style.dim("did you mean: \(sanitized(suggestion))") + "\n\n"
        }
        guard !results.results.isEmpty else {
            out +=
                results.total == 0
                ? "no comics found\n"
                : "no results on page \(results.page): there \(results.pageCount == 1 ? "is 1 page" : "are \(results.pageCount) pages")\n"
            return out
        }
        for result in results.results {
            // Partial matches rank among full ones, so each says so on its own line.
            let partial =
                switch result.match {
                case .allWords: ""
                case .someWords: "  " + style.dim("[some of the words]")
                case .similar: "  " + style.dim("[similar in meaning]")
                }
            out +=
                style.bold("#\(result.id)") + "  " + style.bold(sanitized(result.title)) + "  (\(result.date))"
                + partial + "\n"
            for line in wrap(sanitized(result.snippet), width: max(width - 4, 30), maxLines: 2) {
                out += "    " + styled(line, style: style) + "\n"
            }
            out += "\n"
        }
        let first = (results.page - 1) * results.limit + 1
        let last = first + results.results.count - 1
        var footer = "\(first)-\(last) of \(results.total) result\(results.total == 1 ? "" : "s")"
        if results.hasNextPage {
            // A command that held control characters would run another query once they are
            // removed: then only the option is shown.
            let next = command()
            footer += " · next page: " + (sanitized(next) == next ? next : "--page \(results.page + 1)")
        }
        out += style.dim(footer) + "\n"
        return out
    }

    /// The snippet with its highlight marks turned into the style's highlight (or removed).
    static func styled(_ marked: String, style: Style) -> String {
        HighlightMark.replacing(in: marked, open: style.highlightStart, close: style.highlightEnd)
    }

    /// Cuts a one-line snippet at its spaces into at most `maxLines` lines of `width` visible
    /// characters (highlight marks take no room).
    static func wrap(_ marked: String, width: Int, maxLines: Int) -> [String] {
        var lines: [String] = []
        var line: [UInt8] = []
        var visible = 0
        var marked = marked
        marked.withUTF8 { bytes in
            var wordStart = 0
            while wordStart < bytes.count {
                var wordEnd = wordStart
                var marks = 0
                var markBytes = 0
                var isASCII = true
                while wordEnd < bytes.count, bytes[wordEnd] != 0x20 {
                    if let mark = HighlightMark.at(wordEnd, in: bytes) {
                        marks += 1
                        markBytes += mark.count
                        wordEnd += mark.count
                    } else {
                        isASCII = isASCII && bytes[wordEnd] < 0x80
                        wordEnd += 1
                    }
                }
                defer { wordStart = wordEnd + 1 }
                guard wordEnd > wordStart else { continue }
                let word = UnsafeBufferPointer(rebasing: bytes[wordStart..<wordEnd])
                // Characters, as a terminal shows them; ASCII needs no grapheme breaking.
                let length =
                    isASCII
                    ? word.count - markBytes
                    : String(decoding: word, as: UTF8.self).count - marks
                if visible > 0, visible + 1 + length > width {
                    lines.append(String(decoding: line, as: UTF8.self))
                    if lines.count == maxLines {
                        lines[maxLines - 1] += " …"
                        return
                    }
                    line.removeAll(keepingCapacity: true)
                    visible = 0
                }
                if visible > 0 {
                    line.append(0x20)
                    visible += 1
                }
                line += word
                visible += length
            }
            if !line.isEmpty { lines.append(String(decoding: line, as: UTF8.self)) }
        }
        return lines
    }
}

/// ANSI styles that turn into nothing when colour is off.
struct Style {
    let enabled: Bool
    func bold(_ text: String) -> String { enabled ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { enabled ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    var highlightStart: String { enabled ? "\u{1B}[1;33m" : "" }
    var highlightEnd: String { enabled ? "\u{1B}[0m" : "" }
}
