import Foundation
import XKCDImage
import XKCDOCR

/// "Which xkcd is this?": the comic an image shows, from the words drawn in it: `identify`,
/// `POST /api/identify` and the page's `/identify` (issue 36).
///
/// The words are read with Tesseract (XKCDOCR) and looked up as a passage is (``RelevantRequest``):
/// by their most distinctive words, which the comic's transcript and title hold, fused with their
/// meaning. What Tesseract misreads is mostly words no comic holds, which weigh nothing.
public struct IdentifyRequest: Sendable, Hashable {
    /// The largest image taken, in bytes: a screenshot of a comic is a few hundred kilobytes.
    public static let maximumBytes = 10 << 20
    /// How many comics are given unless told.
    public static let defaultLimit = 5
    /// How many comics a request may ask for.
    public static let limits = 1...100

    /// The image file's bytes.
    public var image: Data
    /// How many comics to give at most, in ``limits``.
    public var limit: Int

    /// The request for an image, with its size and limit checked.
    ///
    /// - Parameters:
    ///   - image: the image file's bytes (PNG, JPEG, GIF, WebP, BMP).
    ///   - limit: how many comics, in ``limits``.
    /// - Throws: ``RequestError/missing(_:)`` for no bytes, ``RequestError/tooLong(_:length:limit:)``
    ///   for more than ``maximumBytes``, ``RequestError/outOfRange(_:value:allowed:)`` for a limit
    ///   outside ``limits``.
    public init(image: Data, limit: Int = defaultLimit) throws(RequestError) {
        guard !image.isEmpty else { throw .missing(.image) }
        guard image.count <= Self.maximumBytes else {
            throw .tooLong(.image, length: image.count, limit: Self.maximumBytes)
        }
        guard Self.limits.contains(limit) else {
            throw .outOfRange(.limit, value: String(limit), allowed: allowedWords(Self.limits))
        }
        self.image = image
        self.limit = limit
    }

    /// The request the API reads: the image from its body, `limit` from its query.
    ///
    /// - Parameters:
    ///   - image: the body's bytes.
    ///   - parameters: the query's parameters.
    /// - Throws: what ``init(image:limit:)`` throws.
    public init(image: Data, reading parameters: some RequestParameters) throws(RequestError) {
        try self.init(
            image: image,
            limit: try parameters.number(
                .limit, default: Self.defaultLimit, in: Self.limits, allowed: allowedWords(Self.limits)))
    }

    /// The comics the image may show, best first, with the words read that each holds.
    ///
    /// - Parameter index: the index to look the words up in.
    /// - Returns: the text read and the comics that fit it; none when nothing was read.
    /// - Throws: `OCRError` for bytes that are no image, one too large, or no Tesseract;
    ///   `StoreError` when the index cannot be read.
    public func run(in index: OpenIndex) throws -> IdentifyResults {
        let reader = try TextReader.shared.get()
        // Decoded once for both the words and the picture; what stb_image does not read (WebP,
        // BMP), or refuses, goes to the reader as bytes, which says why. An animation's later
        // frames are read only when its first holds no words (a comic whose words come later).
        let frames = try? ImageDecoder.frames(image, maxPixels: TextReader.maximumPixels)
        var text = try frames.map { frames throws in try reader.read(frames[0]) } ?? reader.read(image)
        for frame in (frames ?? []).dropFirst() where Self.words(in: text).isEmpty {
            text = try reader.read(frame)
        }
        // Words misread by a letter or two ("CUMULONMBULONMBUS") are read as the index's nearest.
        let byWords = try comics(holding: index.engine.correctingMisreadWords(Self.words(in: text)), in: index)
        let byPicture =
            try frames.map { try comics(lookingLike: $0.flatMap(PerceptualHash.hashes(of:)), in: index) } ?? []
        // The picture's match first: a copy of the image is surer than any words read; then the
        // comics by their words, the picture's own marked as matching it too.
        var results: [IdentifiedComic] = []
        for id in byPicture {
            var comic = try byWords.first { $0.id == id } ?? IdentifiedComic(index.library.comic(id))
            comic.matchesImage = true
            results.append(comic)
        }
        results += byWords.filter { comic in !byPicture.contains(comic.id) }
        return IdentifyResults(text: text, results: Array(results.prefix(limit)))
    }

    /// The most bits a copy's hash may differ by from the comic's image's, out of 64: measured on
    /// the development set (docs/identify.md), where copies resized, recompressed, cropped to
    /// panels or shown in a screenshot differ by 0-10 and unrelated comics' parts by 12 or more.
    static let pictureDistance = 10

    /// The comics one of whose kept hashes (their whole image's, their panels') is near one of
    /// the image's (its whole, its parts), nearest first.
    private func comics(lookingLike hashes: [UInt64], in index: OpenIndex) throws -> [Comic.ID] {
        var nearest: [Comic.ID: Int] = [:]
        for (id, kept) in try index.library.imageHashes() {
            let distance = hashes.lazy.map { PerceptualHash.distance($0, kept) }.min() ?? .max
            if distance <= Self.pictureDistance, distance < nearest[id, default: .max] { nearest[id] = distance }
        }
        return nearest.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(limit).map(\.key)
    }

    /// The comics that hold the words read, as a passage's are looked up.
    private func comics(holding words: [String], in index: OpenIndex) throws -> [IdentifiedComic] {
        guard !words.isEmpty else { return [] }
        do {
            let found = try index.engine.relevant(to: words.joined(separator: " "), limit: limit)
            // A drawing read as letters gives short nonsense ("va ne ca st"), which some comic
            // always holds: a comic fits when it holds two words read of four letters or more,
            // or one of nine or more (a crop with one long word, read right, is no accident).
            return found.results.filter { comic in
                comic.words.filter { $0.count >= 4 }.count >= 2 || comic.words.contains { $0.count >= 9 }
            }.map { comic in
                IdentifiedComic(
                    id: comic.id, title: comic.title, date: comic.date, score: comic.score, words: comic.words)
            }
        } catch SearchError.passageHasNoWords {
            return []
        }
    }

    /// The words of what Tesseract read, lower-cased, that could be a comic's: runs of letters
    /// (and an apostrophe within), three letters or more. Its noise (`|`, `—`, `1S`, single
    /// letters from drawings) is left out.
    static func words(in text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0 == "'") }.map { $0.trimmingCharacters(in: ["'"]) }
            .filter { $0.count >= 3 }
    }
}

/// A comic an image may show.
public struct IdentifiedComic: Sendable, Hashable {
    /// The comic's number.
    public var id: Comic.ID
    /// The comic's title.
    public var title: String
    /// When the comic was published.
    public var date: ComicDate
    /// How well the words read fit the comic; higher is better, comparable only within one image.
    public var score: Double
    /// The words read in the image that the comic holds, most distinctive first.
    public var words: [String]
    /// Whether the image looks like the comic's own (their perceptual hashes are near).
    public var matchesImage = false
}

extension IdentifiedComic {
    /// A comic found by its picture alone, no word read in it.
    init(_ comic: Comic) {
        self.init(id: comic.id, title: comic.title, date: comic.date, score: 0, words: [])
    }
}

/// What ``IdentifyRequest/run(in:)`` found.
public struct IdentifyResults: Sendable, Hashable {
    /// The text as Tesseract read it.
    public var text: String
    /// The comics that fit, best first; empty when nothing readable was found.
    public var results: [IdentifiedComic]
}

/// What `identify --json` prints and `POST /api/identify` answers.
public struct IdentifyDocument: Encodable, Sendable {
    struct Result: Encodable, Sendable {
        var num: Int
        var title: String
        var date: String
        var score: Double
        var url: String
        var reasons: Reasons
    }
    struct Reasons: Encodable, Sendable {
        /// The words read that the comic holds.
        var words: [String]
        /// Whether the image itself matched the comic's (its perceptual hash).
        var image: Bool
    }
    /// What was read in the image.
    var text: String
    var results: [Result]

    /// The document for what an image showed, with the text read cleaned of control characters.
    ///
    /// - Parameter found: what the request found.
    public init(_ found: IdentifyResults) {
        text = sanitized(found.text, keepingNewlines: true)
        results = found.results.map { comic in
            Result(
                num: comic.id, title: comic.title, date: comic.date.description, score: comic.score,
                url: Comic.url(for: comic.id), reasons: Reasons(words: comic.words, image: comic.matchesImage))
        }
    }
}
