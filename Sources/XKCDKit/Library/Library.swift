import Foundation
import Logging
import XKCDModel
import XKCDQuery
import XKCDStore

/// Which comic a command is about, as the user typed it: `327`, `#327`, `latest` or `random`.
public enum ComicReference: Sendable, Hashable {
    case number(Comic.ID)
    /// The newest comic in the index.
    case latest
    /// Drawn uniformly from the indexed comics.
    case random

    /// Parses what the user typed; surrounding spaces and a leading `#` are allowed, and the
    /// address of the comic's page on xkcd.com or explain xkcd, as `search` takes it.
    ///
    /// ```swift
    /// try ComicReference(parsing: "#327")   // .number(327)
    /// try ComicReference(parsing: "https://xkcd.com/327/")   // .number(327)
    /// try ComicReference(parsing: "abc")    // throws LibraryError.notANumber("abc")
    /// ```
    ///
    /// - Parameter text: what the user typed.
    /// - Throws: ``LibraryError/notANumber(_:)``, or ``LibraryError/belowFirst(_:)`` for 0 and
    ///   below.
    public init(parsing text: String) throws(LibraryError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed.lowercased() {
        case "latest", "last": self = .latest
        case "random": self = .random
        default:
            if let number = ComicAddress.number(in: trimmed) {
                self = .number(number)
                return
            }
            let digits = trimmed.hasPrefix("#") ? String(trimmed.dropFirst()) : trimmed
            guard let number = Int(digits), digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-") }) else {
                throw .notANumber(text)
            }
            guard number >= 1 else { throw .belowFirst(number) }
            self = .number(number)
        }
    }
}

/// Where a shown transcript comes from.
public enum TranscriptSource: String, Sendable, Hashable, Codable {
    case xkcd
    case explainXKCD = "explainxkcd"
    case none
}

/// Everything `show` presents about one comic.
public struct ComicPage: Sendable, Hashable {
    /// The comic as xkcd publishes it.
    public var comic: Comic
    /// explain xkcd's page about it, when the index holds one.
    public var explanation: Explanation?
    /// The favourite entry, when the comic is one.
    public var favourite: Favourite?
    /// The xkcd JSON transcript, or explain xkcd's when the JSON has none or it is richer.
    public var transcript: String
    /// Which of the two ``transcript`` is, or ``TranscriptSource/none`` when the comic has none.
    public var transcriptSource: TranscriptSource

    /// The explain xkcd categories (empty without an explanation).
    public var categories: [String] { explanation?.categories ?? [] }

    /// Whether explain xkcd files the comic under its interactive comics: the page on xkcd.com
    /// is a game or a program, and an image of it at most its still.
    public var isInteractive: Bool { categories.contains("Interactive comics") }
}

/// The browsing, explanation and favourites facade that the command line and the REPL share.
///
/// It resolves what the user typed to an indexed comic, remembers the comic shown last (in a
/// ``ShownComic``, so `next` works across runs without writing to the index) and keeps favourites. Every failure is a
/// ``LibraryError`` (or a `StoreError` from the database):
///
/// ```swift
/// let library = Library(database: try ComicDatabase.open(at: path))
/// let page = try library.show(try ComicReference(parsing: "327"))
/// let following = try library.step(.next)       // #328
/// ```
public struct Library: Sendable {
    /// Which way ``step(_:)`` goes from the comic shown last: `next` or `prev`.
    public enum Direction: Sendable { case next, previous }

    /// Which comics `random` draws from.
    public enum Pool: Sendable, Hashable {
        case all
        case favourites
        /// The favourites carrying this tag (normalised before use).
        case tagged(String)
    }

    let database: ComicDatabase
    /// Where the comic shown last is kept.
    public let shown: ShownComic
    /// Says at `info` what was read and remembered (`-v`).
    public let logger: Logger

    /// A library over an open index.
    ///
    /// - Parameters:
    ///   - database: the index, opened once per process (``Services`` opens it).
    ///   - shown: the comic shown last; in this process's memory when nil.
    ///   - logger: where to say what was read and remembered; silent unless told.
    public init(database: ComicDatabase, shown: ShownComic? = nil, logger: Logger = .silent) {
        self.database = database
        self.shown = shown ?? .inMemory
        self.logger = logger
    }

    // MARK: Resolving

    /// The indexed comic number `reference` names; nil means the comic shown last.
    ///
    /// - Parameter reference: the comic as the user named it.
    /// - Returns: the number of a comic the index holds.
    /// - Throws: ``LibraryError/notYetPublished(_:latest:)`` above the latest,
    ///   ``LibraryError/skipped404`` for #404, ``LibraryError/notIndexed(_:)`` for a gap in the
    ///   index, ``LibraryError/emptyIndex``, ``LibraryError/noCurrentComic``; `StoreError` when
    ///   the index cannot be read.
    public func resolve(_ reference: ComicReference?) throws -> Comic.ID {
        guard let latest = try database.latestComicID() else { throw LibraryError.emptyIndex }
        switch reference {
        case nil: return try shownLast()
        case .latest: return latest
        case .random:
            guard let id = try database.randomComicID() else { throw LibraryError.emptyIndex }
            return id
        case .number(let n):
            guard n >= 1 else { throw LibraryError.belowFirst(n) }
            guard n <= latest else { throw LibraryError.notYetPublished(n, latest: latest) }
            if try database.comic(n) != nil { return n }
            if n == 404 { throw LibraryError.skipped404 }
            throw LibraryError.notIndexed(n)
        }
    }

    /// The comic number shown last, or nil.
    public func currentComicID() -> Comic.ID? {
        shown.current
    }

    /// The comic shown last, which must exist.
    private func shownLast() throws -> Comic.ID {
        guard let current = currentComicID() else { throw LibraryError.noCurrentComic }
        logger.info("the comic shown last is #\(current) (\(shown.file?.path ?? "kept in memory"))")
        return current
    }

    // MARK: Browsing

    /// Everything about one comic; remembers it as the comic shown last.
    ///
    /// - Parameter reference: nil shows the comic shown last again.
    /// - Returns: the comic, its explanation, transcript and favourite entry.
    /// - Throws: what ``resolve(_:)`` throws.
    public func show(_ reference: ComicReference?) throws -> ComicPage {
        let page = try page(resolve(reference))
        remember(page.comic.id)
        return page
    }

    /// Remembers `id` as the comic shown last, for `next` and `prev`.
    private func remember(_ id: Comic.ID) {
        shown.remember(id)
        logger.info("#\(id) is now the comic shown last (\(shown.file?.path ?? "kept in memory"))")
    }

    /// The indexed comic after (or before) the one shown last, skipping gaps such as #404.
    ///
    /// - Parameter direction: which way to go.
    /// - Returns: the comic it stepped to, now the comic shown last.
    /// - Throws: ``LibraryError/nothingAfter(_:)`` at the latest,
    ///   ``LibraryError/nothingBefore(_:)`` at the first, ``LibraryError/noCurrentComic`` before
    ///   any comic was shown, ``LibraryError/emptyIndex``; `StoreError` when the index cannot be
    ///   read.
    public func step(_ direction: Direction) throws -> ComicPage {
        guard try database.latestComicID() != nil else { throw LibraryError.emptyIndex }
        let current = try shownLast()
        switch direction {
        case .next:
            guard let id = try database.comicID(after: current) else { throw LibraryError.nothingAfter(current) }
            return try show(.number(id))
        case .previous:
            guard let id = try database.comicID(before: current) else { throw LibraryError.nothingBefore(current) }
            return try show(.number(id))
        }
    }

    /// A comic drawn uniformly from `pool`; remembered as the comic shown last.
    ///
    /// - Parameter pool: the comics to draw from.
    /// - Returns: the comic drawn.
    /// - Throws: ``LibraryError/emptyIndex``, ``LibraryError/noFavourites`` or
    ///   ``LibraryError/noFavouritesTagged(_:)`` when the pool is empty,
    ///   ``LibraryError/invalidTag(_:reason:)`` for a tag it refuses; `StoreError` when the index
    ///   cannot be read.
    public func random(among pool: Pool = .all) throws -> ComicPage {
        let id: Comic.ID?
        switch pool {
        case .all:
            id = try database.randomComicID()
            if id == nil { throw LibraryError.emptyIndex }
        case .favourites:
            id = try database.randomComicID(favouritesOnly: true)
            if id == nil { throw LibraryError.noFavourites }
        case .tagged(let raw):
            let tag = try Library.normalisedTag(raw)
            id = try database.randomComicID(taggedWith: tag)
            if id == nil { throw LibraryError.noFavouritesTagged(tag) }
        }
        return try show(.number(id!))
    }

    /// The comic with its explanation, which must exist; remembered as the comic shown last.
    ///
    /// - Parameter reference: the comic; nil is the comic shown last.
    /// - Returns: the comic with its explanation.
    /// - Throws: ``LibraryError/noExplanation(_:)`` when explain xkcd has none yet, and what
    ///   ``resolve(_:)`` throws.
    public func explain(_ reference: ComicReference?) throws -> ComicPage {
        let id = try resolve(reference)
        let page = try page(id)
        guard let text = page.explanation?.page.explanation, !text.isEmpty else {
            throw LibraryError.noExplanation(id)
        }
        remember(id)
        return page
    }

    /// The share line: `xkcd #327: Exploits of a Mom https://xkcd.com/327/`; remembered as the
    /// comic shown last, as sharing it is a way of showing it (`next` goes on from there).
    ///
    /// - Parameter reference: the comic; nil is the comic shown last.
    /// - Returns: the line, without a line feed.
    /// - Throws: what ``resolve(_:)`` throws.
    public func shareLine(_ reference: ComicReference?) throws -> String {
        Library.shareLine(for: try sharedComic(reference))
    }

    /// The comic to share, remembered as ``shareLine(_:)`` remembers it.
    ///
    /// - Parameter reference: the comic; nil is the comic shown last.
    /// - Returns: the comic.
    /// - Throws: what ``resolve(_:)`` throws.
    public func sharedComic(_ reference: ComicReference?) throws -> Comic {
        let id = try resolve(reference)
        guard let comic = try database.comic(id) else { throw LibraryError.notIndexed(id) }
        remember(id)
        return comic
    }

    /// The share line of `comic`: its number, title and address on xkcd.com.
    ///
    /// - Parameter comic: the comic to share.
    /// - Returns: `xkcd #327: Exploits of a Mom https://xkcd.com/327/`, without a line feed.
    public static func shareLine(for comic: Comic) -> String {
        "xkcd #\(comic.id): \(comic.title) \(comic.url)"
    }

    /// The comic's page on xkcd.com, or on explain xkcd; remembered as the comic shown last, as
    /// opening it in the browser is a way of showing it.
    ///
    /// - Parameters:
    ///   - reference: the comic; nil is the comic shown last.
    ///   - explain: the page on explain xkcd instead of xkcd.com.
    /// - Returns: the page's address.
    /// - Throws: what ``resolve(_:)`` throws.
    public func url(_ reference: ComicReference?, explain: Bool = false) throws -> String {
        let id = try resolve(reference)
        guard try database.comic(id) != nil else { throw LibraryError.notIndexed(id) }
        remember(id)
        return explain ? Comic.explainURL(for: id) : Comic.url(for: id)
    }

    /// Everything about an indexed comic, without remembering it.
    ///
    /// - Parameter id: the comic's number.
    /// - Returns: the comic, its explanation, transcript and favourite entry.
    /// - Throws: ``LibraryError/notIndexed(_:)`` when the index does not hold it, `StoreError`
    ///   when the index cannot be read.
    public func page(_ id: Comic.ID) throws -> ComicPage {
        guard let comic = try database.comic(id) else { throw LibraryError.notIndexed(id) }
        let explanation = try database.explanation(for: id)
        let (transcript, source) = Library.bestTranscript(json: comic.transcript, explain: explanation?.page.transcript)
        logger.info(
            "read #\(id) from the index: \(explanation == nil ? "no explanation" : "with its explanation"), transcript: \(source.rawValue)"
        )
        return ComicPage(
            comic: comic, explanation: explanation, favourite: try database.favourite(id),
            transcript: transcript, transcriptSource: source)
    }

    /// The JSON transcript, unless it is empty or explain xkcd's says more (in letters and digits).
    static func bestTranscript(json: String, explain: String?) -> (String, TranscriptSource) {
        // The set fetched once: Foundation on Linux builds the value anew at every `.alphanumerics`,
        // which was 8% of the server's time serving a comic (perf), asked once per letter.
        let alphanumerics = CharacterSet.alphanumerics
        func weight(_ text: String) -> Int { text.unicodeScalars.filter { alphanumerics.contains($0) }.count }
        let json = json.trimmingCharacters(in: .whitespacesAndNewlines)
        let explain = (explain ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if !explain.isEmpty, json.isEmpty || weight(explain) > weight(json) { return (explain, .explainXKCD) }
        if !json.isEmpty { return (json, .xkcd) }
        return ("", .none)
    }
}

/// The comics a comic's page links to: the first, the one before, the one after and the latest
/// in the index (nil where there is none, or where it is the comic itself).
public struct ComicNeighbours: Sendable, Hashable {
    /// The first comic in the index.
    public var first: Comic.ID?
    /// The indexed comic before, skipping gaps.
    public var previous: Comic.ID?
    /// The indexed comic after, skipping gaps.
    public var next: Comic.ID?
    /// The latest comic in the index.
    public var latest: Comic.ID?
}

extension Library {
    /// An indexed comic, without its explanation and without remembering it.
    ///
    /// - Parameter id: the comic's number.
    /// - Returns: the comic.
    /// - Throws: ``LibraryError/notIndexed(_:)`` when the index does not hold it, `StoreError`
    ///   when the index cannot be read.
    public func comic(_ id: Comic.ID) throws -> Comic {
        guard let comic = try database.comic(id) else { throw LibraryError.notIndexed(id) }
        return comic
    }

    /// The first, previous, next and latest comics around `id`, for a page's links.
    ///
    /// - Parameter id: the comic shown.
    /// - Returns: the comics to link to.
    /// - Throws: `StoreError` when the index cannot be read.
    public func neighbours(of id: Comic.ID) throws -> ComicNeighbours {
        let first = try database.firstComicID()
        let latest = try database.latestComicID()
        return ComicNeighbours(
            first: first == id ? nil : first, previous: try database.comicID(before: id),
            next: try database.comicID(after: id), latest: latest == id ? nil : latest)
    }

    /// Whether the index holds any comic yet.
    ///
    /// - Throws: `StoreError` when the index cannot be read.
    public func hasComics() throws -> Bool {
        try database.latestComicID() != nil
    }
}

extension Library {
    /// The perceptual hash of every comic image the indexer hashed (`index --images`).
    ///
    /// - Returns: each comic's number and the hash of its image.
    /// - Throws: `StoreError` when the index cannot be read.
    public func imageHashes() throws -> [(id: Comic.ID, hash: UInt64)] {
        try database.imageHashes()
    }
}
