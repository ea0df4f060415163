import FoundationEssentials

/// What `explain --json` prints: the explanation, or nulls for a comic without one (a script
/// asking about it gets nulls, not an error).
public struct ExplanationDocument: Encodable, Sendable {
    var num: Int
    var title: String
    @NullWhenMissing var explanation: String?
    @NullWhenMissing var trivia: String?
    @NullWhenMissing var incomplete: Bool?
    var explainUrl: String
    var credit = Credit.line

    /// The document for `page`, with nulls when explain xkcd has no explanation of it yet.
    ///
    /// - Parameter page: the comic as `explain` read it.
    public init(page: ComicPage) {
        let explained = page.explanation.map(\.page).flatMap { $0.explanation.isEmpty ? nil : $0 }
        num = page.comic.id
        title = page.comic.title
        explanation = explained?.explanation
        trivia = explained?.trivia
        incomplete = explained?.isIncomplete
        explainUrl = page.comic.explainURL
    }
}

/// What `link --json` prints: the comic and the line to share it with.
public struct LinkDocument: Encodable, Sendable {
    var num: Int
    var title: String
    var url: String
    var line: String

    /// The document for one comic.
    ///
    /// - Parameters:
    ///   - num: the comic's number.
    ///   - title: the comic's title.
    ///   - url: the comic's page on xkcd.com.
    ///   - line: the line to share, as ``Library/shareLine(for:)`` writes it.
    public init(num: Int, title: String, url: String, line: String) {
        self.num = num
        self.title = title
        self.url = url
        self.line = line
    }
}

/// What `about --json` prints: where the comics and explanations come from, and their licences.
public struct AboutDocument: Encodable, Sendable {
    /// One source of the index's content: what it gives, who made it and under which licence.
    public struct Source: Encodable, Sendable {
        var name: String
        var content: String
        var by: String
        var url: String
        var licence: String
        var licenceUrl: String
    }

    /// How far the snapshot shipped in the repository goes: the latest comic and explanation it
    /// holds, and their dates.
    public struct Snapshot: Encodable, Sendable {
        var xkcdLatest: Int
        var xkcdDate: String
        var explainLatest: Int
        var explainDate: String
    }

    var version: String
    var sources: [Source]
    var snapshot: Snapshot
    var licence: String

    /// The document of this release; the sources and the snapshot are fixed in the code.
    ///
    /// - Parameter version: the program's version, as `--version` prints it.
    public init(version: String) {
        self.version = version
        sources = [
            Source(
                name: "xkcd", content: "titles, title text, images, transcripts", by: "Randall Munroe",
                url: "https://xkcd.com", licence: "CC BY-NC 2.5", licenceUrl: "https://xkcd.com/license.html"),
            Source(
                name: "explain xkcd", content: "explanations, transcripts, trivia and categories",
                by: "the explain xkcd wiki and its contributors", url: "https://www.explainxkcd.com",
                licence: "CC BY-SA 3.0", licenceUrl: "https://creativecommons.org/licenses/by-sa/3.0/"),
        ]
        snapshot = Snapshot(xkcdLatest: 3282, xkcdDate: "2026-08-08", explainLatest: 3174, explainDate: "2025-11-29")
        licence = "MIT"
    }
}
