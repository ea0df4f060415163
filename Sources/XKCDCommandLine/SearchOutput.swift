import Foundation
import XKCDKit

/// How search results are printed.
public enum SearchOutput {
    struct JSONPage: Encodable {
        struct Result: Encodable {
            var num: Int
            var title: String
            var date: String
            var score: Double
            var snippet: String
            var url: String
            var partial: Bool
            /// "all-words", "some-words" or "similar" (found by meaning alone).
            var match: String
        }
        var query: String
        var total: Int
        var page: Int
        var limit: Int
        @NullWhenMissing var corrected: String?
        @NullWhenMissing var suggestion: String?
        var results: [Result]
    }

    public static func json(_ results: SearchResults) throws -> String {
        let page = JSONPage(
            query: results.query, total: results.total, page: results.page, limit: results.limit,
            corrected: results.corrected, suggestion: results.suggestion,
            results: results.results.map { result in
                JSONPage.Result(
                    num: result.id, title: result.title, date: result.date.description,
                    score: (result.score * 1000).rounded() / 1000,
                    snippet: plainSnippet(result.snippet), url: "https://xkcd.com/\(result.id)/",
                    partial: result.isPartialMatch, match: result.match.rawValue)
            })
        return try JSONOutput.line(page)
    }

    /// `327<TAB>Exploits of a Mom<TAB>2007-10-10` a comic, nothing else: what fzf lists and
    /// `cut -f1` reads. Tabs and line breaks of a title are spaces, so each comic is one line.
    public static func oneline(_ results: SearchResults) -> String {
        results.results.map { result in
            let title = sanitized(result.title).map { $0 == "\t" || $0.isNewline ? " " : $0 }
            return "\(result.id)\t\(String(title))\t\(result.date)\n"
        }.joined()
    }

    public static func plainSnippet(_ snippet: String) -> String {
        styled(sanitized(snippet), style: Style(enabled: false))
    }

    /// - Parameter command: the command for the next page, asked for only when there is one.
    public static func text(_ results: SearchResults, color: Bool, width: Int, command: @autoclosure () -> String) -> String {
        let style = Style(enabled: color)
        var out = results.note.map { style.dim($0) + "\n\n" } ?? ""
        if let corrected = results.corrected {
            let (typed, shown) = ("\u{201C}\(sanitized(results.query))\u{201D}", "\u{201C}\(sanitized(corrected))\u{201D}")
            // "No results" only when it is true: a misspelling may still find comics by its stem.
            let notice = results.typedQueryFound
                ? "showing results for \(shown) (--exact searches \(typed) as typed)"
                : "no results for \(typed); showing results for \(shown)"
            out += style.dim(notice) + "\n\n"
        } else if let suggestion = results.suggestion {
            out += style.dim("did you mean: \(sanitized(suggestion))") + "\n\n"
        }
        guard !results.results.isEmpty else {
            out += results.total == 0 ? "no comics found\n" : "no results on page \(results.page): there \(results.pageCount == 1 ? "is 1 page" : "are \(results.pageCount) pages")\n"
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
            out += style.bold("#\(result.id)") + "  " + style.bold(sanitized(result.title)) + "  (\(result.date))" + partial + "\n"
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

    private static let openMark = Array(SearchEngine.highlightMarks.open.utf8)
    private static let closeMark = Array(SearchEngine.highlightMarks.close.utf8)
    private static let markFirstBytes = (open: openMark[0], close: closeMark[0])

    /// The snippet with its highlight marks turned into the style's highlight (or removed).
    ///
    /// Byte by byte, like ``wrap(_:width:maxLines:)``: Foundation's `replacingOccurrences` made a
    /// search process a quarter slower.
    private static func styled(_ marked: String, style: Style) -> String {
        let start = Array(style.highlightStart.utf8), end = Array(style.highlightEnd.utf8)
        var out: [UInt8] = []
        var marked = marked
        marked.withUTF8 { bytes in
            out.reserveCapacity(bytes.count + 16)
            var index = 0
            while index < bytes.count {
                if let mark = mark(in: bytes, at: index) {
                    out += mark == .open ? start : end
                    index += mark == .open ? openMark.count : closeMark.count
                } else {
                    out.append(bytes[index])
                    index += 1
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private enum Mark { case open, close }

    /// The highlight mark that starts at `index`, if one does.
    private static func mark(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Mark? {
        // Most bytes start neither mark: one comparison each before the marks are read.
        let byte = bytes[index]
        guard byte == markFirstBytes.open || byte == markFirstBytes.close else { return nil }
        func matches(_ mark: [UInt8]) -> Bool {
            guard index + mark.count <= bytes.count else { return false }
            for offset in mark.indices where bytes[index + offset] != mark[offset] { return false }
            return true
        }
        return matches(openMark) ? .open : matches(closeMark) ? .close : nil
    }

    /// Cuts a one-line snippet at its spaces into at most `maxLines` lines of `width` visible
    /// characters (highlight marks take no room).
    private static func wrap(_ marked: String, width: Int, maxLines: Int) -> [String] {
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
                    if let mark = mark(in: bytes, at: wordEnd) {
                        marks += 1
                        markBytes += mark == .open ? openMark.count : closeMark.count
                        wordEnd += mark == .open ? openMark.count : closeMark.count
                    } else {
                        isASCII = isASCII && bytes[wordEnd] < 0x80
                        wordEnd += 1
                    }
                }
                defer { wordStart = wordEnd + 1 }
                guard wordEnd > wordStart else { continue }
                let word = UnsafeBufferPointer(rebasing: bytes[wordStart..<wordEnd])
                // Characters, as a terminal shows them; ASCII needs no grapheme breaking.
                let length = isASCII
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
