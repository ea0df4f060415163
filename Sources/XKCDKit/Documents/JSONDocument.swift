import Foundation

/// The one JSON convention of every document xkcd-search writes, the command line's `--json`
/// and the HTTP API's answers alike (README.md, "JSON"): one line, keys sorted, slashes as they
/// are, every documented key present (`null` for a missing value), and the controls JSONEncoder
/// leaves as they are escaped (``escapingControls(inJSON:)``). One line a document, so that
/// `jq`, `grep` and a loop over lines read it as it comes.
public enum JSONDocument: Sendable {
    /// `value` as one line of JSON in the convention, for a response body or a file.
    ///
    /// - Parameter value: the document.
    /// - Returns: the line's UTF-8 bytes, without a line feed at the end.
    /// - Throws: `EncodingError` when `value` cannot be written as JSON (a number that is not
    ///   finite).
    public static func data(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return escapingControls(inJSON: try encoder.encode(value))
    }

    /// `value` as one line of JSON in the convention, for printing.
    ///
    /// - Parameter value: the document.
    /// - Returns: the line, without a line feed at the end.
    /// - Throws: `EncodingError` when `value` cannot be written as JSON (a number that is not
    ///   finite).
    public static func line(_ value: some Encodable) throws -> String {
        String(decoding: try data(value), as: UTF8.self)
    }

    /// Seconds rounded to hundredths: what a person or a script compares; the rest is noise.
    ///
    /// - Parameter seconds: a time measured.
    /// - Returns: `seconds` to two decimal places.
    public static func rounded(seconds: Double) -> Double {
        (seconds * 100).rounded() / 100
    }

    /// `data`, JSON, with the controls JSONEncoder writes as they are escaped: DEL, C1 controls
    /// (U+0080-U+009F, among them U+009B, a one-byte CSI) and the bidi marks, overrides and
    /// isolates. They can only be inside strings, where `\uXXXX` means the same character.
    ///
    /// - Parameter data: JSON as JSONEncoder wrote it.
    /// - Returns: the same JSON with those characters written as `\uXXXX`.
    public static func escapingControls(inJSON data: Data) -> Data {
        var out = Data()
        out.reserveCapacity(data.count)
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            while index < bytes.count {
                // C0 controls are JSONEncoder's own: escaped in strings, line feeds of its layout
                // between them.
                let length = bytes[index] < 0x20 ? 0 : controlLength(in: bytes, at: index)
                guard length > 0 else {
                    out.append(bytes[index])
                    index += 1
                    continue
                }
                let scalar = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self
                )
                .unicodeScalars.first!.value
                out.append(contentsOf: Array(String(format: "\\u%04x", scalar).utf8))
                index += length
            }
        }
        return out
    }
}

/// A value written as `null` when missing: the encoder Swift writes for a type leaves a nil
/// optional out, and the convention is that every documented key is there.
@propertyWrapper
public struct NullWhenMissing<Value: Encodable>: Encodable {
    /// The value; nil is written as `null`.
    public var wrappedValue: Value?

    /// Wraps a value, as Swift does for a property declared `@NullWhenMissing`.
    ///
    /// - Parameter wrappedValue: the value; nil is written as `null`.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// Writes the value, or `null` when there is none.
    ///
    /// - Parameter encoder: the encoder writing the document.
    /// - Throws: `EncodingError` when `encoder` cannot write the value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullWhenMissing: Sendable where Value: Sendable {}

/// Where a document's titles, title texts, transcripts, snippets and explanations come from,
/// under which licence: the `credit` of every document that carries them, and the line that
/// ends `show` and `explain` in the terminal. Both licences ask that their source be named.
public enum Credit {
    /// The sources and their licences, in one line.
    public static let line = "xkcd.com (CC BY-NC 2.5) · explanation: explain xkcd (CC BY-SA 3.0)"
}

/// What `search --json` prints and `GET /api/search` answers.
public struct SearchResultsDocument: Encodable, Sendable {
    /// One comic found: its score, the snippet that shows the query's words, and how it matched.
    public struct Result: Encodable, Sendable {
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
    var credit = Credit.line

    /// The document for a page of results, with the snippets' highlight marks taken out.
    ///
    /// - Parameter results: the page the search found.
    public init(_ results: SearchResults) {
        query = results.query
        total = results.total
        page = results.page
        limit = results.limit
        corrected = results.corrected
        suggestion = results.suggestion
        self.results = results.results.map { result in
            Result(
                num: result.id, title: result.title, date: result.date.description,
                score: (result.score * 1000).rounded() / 1000,
                snippet: HighlightMark.replacing(in: sanitized(result.snippet), open: "", close: ""),
                url: Comic.url(for: result.id), partial: result.isPartialMatch, match: result.match.rawValue)
        }
    }
}

/// What `show --json` prints and `GET /api/comics/{n}` answers: the documented keys,
/// `explanation`/`trivia`/`incomplete` only with the explanation asked for.
public struct ComicDocument: Encodable, Sendable {
    /// The comic and what the index knows about it.
    public var page: ComicPage
    /// Whether the document carries the explanation's keys (`show --explain`, `?explain=1`).
    public var withExplanation: Bool

    /// The document for one comic.
    ///
    /// - Parameters:
    ///   - page: the comic, as ``Library/show(_:)`` or ``Library/page(_:)`` read it.
    ///   - withExplanation: whether to add `explanation`, `trivia` and `incomplete`.
    public init(page: ComicPage, withExplanation: Bool) {
        self.page = page
        self.withExplanation = withExplanation
    }

    enum CodingKeys: String, CodingKey {
        case num, title, date, alt, img, url, explainUrl, transcript, transcriptSource, categories
        case favourite, tags, explanation, trivia, incomplete, credit
    }

    /// Writes the documented keys, `null` for a missing value.
    ///
    /// - Parameter encoder: the encoder writing the document.
    /// - Throws: `EncodingError` when `encoder` cannot write a value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let comic = page.comic
        try container.encode(comic.id, forKey: .num)
        try container.encode(comic.title, forKey: .title)
        try container.encode(comic.date.description, forKey: .date)
        try container.encode(comic.alt, forKey: .alt)
        try container.encode(comic.imageURL, forKey: .img)
        try container.encode(comic.url, forKey: .url)
        try container.encode(comic.explainURL, forKey: .explainUrl)
        // No transcript is null, as every missing value is.
        try container.encode(page.transcript.isEmpty ? nil : page.transcript, forKey: .transcript)
        try container.encode(page.transcriptSource.rawValue, forKey: .transcriptSource)
        try container.encode(page.categories, forKey: .categories)
        try container.encode(page.favourite != nil, forKey: .favourite)
        try container.encode(page.favourite?.tags ?? [], forKey: .tags)
        if withExplanation {
            let explanation = page.explanation.flatMap { $0.page.explanation.isEmpty ? nil : $0.page }
            try container.encode(explanation?.explanation, forKey: .explanation)
            try container.encode(explanation?.trivia, forKey: .trivia)
            try container.encode(explanation?.isIncomplete, forKey: .incomplete)
        }
        try container.encode(Credit.line, forKey: .credit)
    }
}

/// What `related --json` prints and `GET /api/comics/{n}/related` answers.
public struct RelatedDocument: Encodable, Sendable {
    struct Entry: Encodable, Sendable {
        var num: Int
        var title: String
        var date: String
        var reasons: [String]
        /// For a comic related by "similar": the cosine similarity of the two comics' vectors.
        @NullWhenMissing var similarity: Double?
    }
    var num: Int
    var title: String
    var related: [Entry]
    var credit = Credit.line

    /// The document for a comic's related comics, with their reasons.
    ///
    /// - Parameter found: what ``Library/related(_:)`` found.
    public init(_ found: RelatedComics) {
        num = found.comic.id
        title = found.comic.title
        related = found.related.map {
            Entry(
                num: $0.id, title: $0.title, date: $0.date.description, reasons: $0.reasons.map(\.rawValue),
                similarity: $0.similarity.map { ($0 * 1000).rounded() / 1000 })
        }
    }
}

/// What `relevant --json` prints and `POST /api/relevant` answers: the comics that fit a
/// passage, each with its reasons.
public struct RelevantDocument: Encodable, Sendable {
    struct Result: Encodable, Sendable {
        var num: Int
        var title: String
        var date: String
        var score: Double
        var url: String
        /// The reasons it fits: the passage's words it holds, its text that holds them, and the
        /// passage's sentence nearest to it in meaning with their cosine similarity.
        var reasons: Reasons
    }
    struct Reasons: Encodable, Sendable {
        var words: [String]
        var snippet: String
        @NullWhenMissing var sentence: String?
        @NullWhenMissing var similarity: Double?
        /// Whether the passage holds every word of the comic's title.
        var holdsTitle: Bool
        /// How many other comics' explanations link to it.
        var linkedFrom: Int
        /// The cosine similarity with the nearest passage someone linked it to, when that lifted it.
        @NullWhenMissing var linkedPassageSimilarity: Double?
        /// The cosine similarity with the nearest situation written for it, when that lifted it.
        @NullWhenMissing var writtenSituationSimilarity: Double?
        /// That situation.
        @NullWhenMissing var writtenSituation: String?
    }
    /// The passage's words the comics were looked up by.
    var words: [String]
    /// The passage's length in bytes when it was cut to the limit, else null.
    @NullWhenMissing var cutFrom: Int?
    /// How sure the first comic is the one: "fits well", "might fit" or "a long shot"; null when
    /// there is no first comic or meaning could not be asked (``RelevantConfidence``).
    @NullWhenMissing var confidence: String?
    var results: [Result]
    var credit = Credit.line

    /// The document for the comics that fit a passage, with the snippets' highlight marks taken
    /// out.
    ///
    /// - Parameter found: what ``SearchEngine/relevant(to:limit:settings:)`` found.
    public init(_ found: RelevantResults) {
        words = found.words
        cutFrom = found.cutFrom
        confidence = found.confidence?.rawValue
        results = found.results.map { result in
            Result(
                num: result.id, title: result.title, date: result.date.description,
                score: (result.score * 1000).rounded() / 1000, url: Comic.url(for: result.id),
                reasons: Reasons(
                    words: result.words,
                    snippet: HighlightMark.replacing(in: sanitized(result.snippet), open: "", close: ""),
                    sentence: result.sentence, similarity: result.similarity.map { ($0 * 1000).rounded() / 1000 },
                    holdsTitle: result.holdsTitle, linkedFrom: result.linkedFrom,
                    linkedPassageSimilarity: result.linkedPassageSimilarity.map { ($0 * 1000).rounded() / 1000 },
                    writtenSituationSimilarity: result.writtenSituationSimilarity.map { ($0 * 1000).rounded() / 1000 },
                    writtenSituation: result.writtenSituation.map { sanitized($0) }))
        }
    }
}
