import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDFiles
import XKCDKit

#if canImport(Glibc)
    import Glibc
#endif

extension GlobalOptions {
    /// Lays out for what stdout is connected to (`COLUMNS` sets the width when it is not a
    /// terminal), in colour as `--color` says.
    var renderer: Renderer { Renderer(width: Terminal.width, usesColor: usesColor) }
}

/// Lays out comics and explanations for the terminal: wrapped to its width and with bold
/// headings on a terminal; plain, one paragraph a line, when the output goes to a pipe.
///
/// Every string from the data passes through ``sanitized(_:keepingNewlines:)`` first.
struct Renderer {
    /// Columns to wrap at; nil leaves lines whole.
    var width: Int?
    var usesColor: Bool

    /// The line that ends `show` and `explain`: where the text comes from and under which licence.
    static let credit = Credit.line

    func bold(_ text: String) -> String {
        usesColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }

    /// `#327  Exploits of a Mom  (2007-10-10)`
    func heading(_ comic: Comic) -> String {
        bold("#\(comic.id)  \(sanitized(comic.title))  (\(comic.date))")
    }

    /// `text` with each line wrapped to the width and indented by `indent` spaces.
    func wrap(_ text: String, indent: Int = 2) -> String {
        let margin = String(repeating: " ", count: indent)
        let lines = sanitized(text, keepingNewlines: true).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.map { line -> String in
            guard let width, line.count + indent > width else { return line.isEmpty ? "" : margin + line }
            var result: [String] = []
            var current = ""
            for word in line.split(separator: " ") {
                if !current.isEmpty, current.count + 1 + word.count + indent > width {
                    result.append(margin + current)
                    current = String(word)
                } else {
                    current += (current.isEmpty ? "" : " ") + word
                }
            }
            if !current.isEmpty { result.append(margin + current) }
            return result.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A label with its value on the same line (short values such as URLs).
    func field(_ label: String, _ value: String) -> String {
        bold(label.padding(toLength: 11, withPad: " ", startingAt: 0)) + " " + sanitized(value)
    }

    /// A label on its own line with the value wrapped and indented below it.
    func block(_ label: String, _ text: String) -> String {
        bold(label) + "\n" + wrap(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Everything `show` prints, the credit line last.
    func page(_ page: ComicPage, withExplanation: Bool) -> String {
        let comic = page.comic
        var parts = [heading(comic), "", block("Title text", comic.alt)]
        parts.append(field("Image", comic.imageURL))
        parts.append(field("Link", comic.url))
        parts.append(field("Explain", comic.explainURL))
        if let favourite = page.favourite {
            let tags = favourite.tags.isEmpty ? "" : " (tags: \(favourite.tags.joined(separator: ", ")))"
            parts.append(field("Favourite", "yes" + tags))
        }
        switch page.transcriptSource {
        case .none: parts.append(field("Transcript", "none yet"))
        case .xkcd: parts.append(block("Transcript (xkcd)", page.transcript))
        case .explainXKCD: parts.append(block("Transcript (explain xkcd)", page.transcript))
        }
        if !page.categories.isEmpty {
            parts.append(block("Categories", page.categories.joined(separator: ", ")))
        }
        if withExplanation {
            parts.append(explanationBody(page))
        }
        parts += ["", Renderer.credit]
        return parts.joined(separator: "\n")
    }

    /// Everything `explain` prints: the explanation, the trivia and the wiki link.
    func explanation(_ page: ComicPage) -> String {
        [heading(page.comic), "", explanationBody(page), field("Explain", page.comic.explainURL), "", Renderer.credit]
            .joined(separator: "\n")
    }

    private func explanationBody(_ page: ComicPage) -> String {
        guard let explanation = page.explanation, !explanation.page.explanation.isEmpty else {
            return field("Explanation", "none yet on explain xkcd")
        }
        var parts = [block("Explanation", explanation.page.explanation)]
        if explanation.page.isIncomplete {
            parts.append("  (explain xkcd marks this explanation as incomplete)")
        }
        if !explanation.page.trivia.isEmpty {
            parts.append(block("Trivia", explanation.page.trivia))
        }
        return parts.joined(separator: "\n")
    }
}

/// Output flags shared by `show`, `next`, `prev`, `random` and `latest`.
struct PageOptions: ParsableArguments {
    @Flag(help: "Add the explain xkcd explanation and trivia.")
    var explain = false

    @Flag(help: "Print JSON: num, title, date, alt, img, url, explainUrl, transcript, categories, ….")
    var json = false

    @OptionGroup(title: "Image") var image: ImageOptions

    /// Prints a comic page as text or JSON, the text through the pager unless `--no-pager`, and
    /// the image with it where it is drawn (``ComicImage``).
    func print(_ page: ComicPage, with global: GlobalOptions) throws {
        if json {
            return try JSONOutput.print(ComicDocument(page: page, withExplanation: explain))
        }
        let text = global.renderer.page(page, withExplanation: explain)
        guard image.drawsImage else {
            Pager.start(unless: global.noPager)
            return Swift.print(text)
        }
        // The image of an interactive comic is only its still: say where the comic is.
        if page.isInteractive, ImageCache.fileName(comic: page.comic.id, imageURL: page.comic.imageURL) != nil {
            Terminal.printError(
                "#\(page.comic.id) is an interactive comic: this is its still image; 'xkcd-search open \(page.comic.id)' plays it"
            )
        }
        ComicImage(comic: page.comic, options: image, global: global).show(with: text)
    }
}

/// Runs this executable in `role` with this process's terminal and environment and waits
/// (``ChildProcess``), with `standardOutput` as its standard output when given.
/// Returns the exit status, or -1 after saying why it could not start.
func spawn(_ role: SiblingExecutable, _ arguments: [String], standardOutput: Int32? = nil) -> Int32 {
    do {
        return try ChildProcess.run(
            role.path, argument0: role.kind.name, arguments: arguments, standardOutput: standardOutput)
    } catch {
        Terminal.printError(
            "no image: could not start \(role.kind.role): \(String(cString: strerror(error.code.rawValue)))")
        return -1
    }
}
