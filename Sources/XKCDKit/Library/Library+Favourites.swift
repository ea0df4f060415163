import Foundation
import Logging
import XKCDModel
import XKCDStore

/// A favourite with its comic, when the index holds it (an imported favourite may be ahead of it).
public struct FavouriteEntry: Sendable, Hashable {
    /// The number, the date it was added and its tags.
    public var favourite: Favourite
    /// The comic, or nil when the index does not hold it yet.
    public var comic: Comic?
}

/// What `fav list --json` prints for each favourite and `GET /api/favourites` answers: the
/// comic's title and date are `null` when the index does not hold it (yet).
public struct FavouriteDocument: Encodable, Sendable {
    var num: Int
    @NullWhenMissing var title: String?
    @NullWhenMissing var date: String?
    var added: Date
    var tags: [String]
    var url: String

    /// The document for one favourite.
    /// - Parameter entry: the favourite and its comic, if indexed.
    public init(_ entry: FavouriteEntry) {
        num = entry.favourite.id
        title = entry.comic?.title
        date = entry.comic?.date.description
        added = entry.favourite.addedAt
        tags = entry.favourite.tags
        url = Comic.url(for: entry.favourite.id)
    }
}

/// What `fav add` did.
public struct FavouriteAddition: Sendable, Hashable {
    /// The comic made a favourite.
    public var comic: Comic
    /// The favourite as it is now.
    public var favourite: Favourite
    /// False when the comic was a favourite already.
    public var isNew: Bool
    /// The tags that were not attached before.
    public var addedTags: [String]
}

/// What `fav import` did.
public struct FavouriteImport: Sendable, Equatable {
    /// Favourites the file held.
    public var entries: Int
    /// Comics that became favourites, ascending.
    public var addedFavourites: [Comic.ID]
    /// Tags newly attached, counted once per comic.
    public var addedTags: Int
}

/// The favourites export file, version 1:
///
/// ```json
/// {
///   "favourites" : [
///     { "added" : "2026-08-08T12:00:00Z", "num" : 327, "tags" : [ "sql" ], "title" : "Exploits of a Mom" }
///   ],
///   "exported" : "2026-08-09T08:30:00Z",
///   "format" : "xkcd-search favourites",
///   "version" : 1
/// }
/// ```
///
/// Export writes every key, favourites by number, tags sorted. Import requires `format`,
/// `version` (1) and each `num`; `added` (ISO 8601, defaults to now), `tags` (normalised on
/// import) and `title` (informational, ignored) may be left out.
public struct FavouritesDocument: Codable, Sendable, Equatable {
    /// The `format` an export names, so that import can tell it from any other JSON file.
    public static let formatName = "xkcd-search favourites"
    /// The `version` export writes and import reads.
    public static let currentVersion = 1

    /// One favourite in the file.
    public struct Entry: Codable, Sendable, Equatable {
        /// The comic's number.
        public var num: Int
        /// The comic's title, for a person reading the file; import ignores it.
        public var title: String?
        /// When it became a favourite; import takes the time of import when it is missing.
        public var added: Date?
        /// Its tags; import normalises them.
        public var tags: [String]?

        /// An entry as export writes it.
        /// - Parameters:
        ///   - num: the comic's number.
        ///   - title: the comic's title, for a person reading the file.
        ///   - added: when it became a favourite.
        ///   - tags: its tags.
        public init(num: Int, title: String? = nil, added: Date? = nil, tags: [String]? = nil) {
            self.num = num
            self.title = title
            self.added = added
            self.tags = tags
        }

        /// As synthesized, but a number with a fraction is named as such (JSONDecoder says the
        /// whole file is not valid JSON).
        /// - Parameter decoder: the decoder reading the file.
        /// - Throws: `DecodingError` for a missing `num`, a value of the wrong type or a number
        ///   with a fraction.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let number = try? container.decode(Double.self, forKey: .num), number.rounded(.towardZero) != number {
                throw DecodingError.dataCorruptedError(
                    forKey: .num, in: container, debugDescription: "should be a whole number, not \(number)")
            }
            num = try container.decode(Int.self, forKey: .num)
            title = try container.decodeIfPresent(String.self, forKey: .title)
            added = try container.decodeIfPresent(Date.self, forKey: .added)
            tags = try container.decodeIfPresent([String].self, forKey: .tags)
        }
    }

    /// ``formatName`` in a file import takes.
    public var format: String
    /// ``currentVersion`` in a file import takes.
    public var version: Int
    /// When the file was exported; import does not read it.
    public var exported: Date?
    /// The favourites, by number in an export.
    public var favourites: [Entry]
}

extension Library {
    // MARK: Tags

    /// The most characters (Unicode scalars) a tag may have.
    public static let maximumTagLength = 40
    /// The most characters a tag may be sent with, white space around it included.
    public static let maximumTagLengthAsSent = 100

    /// A tag as stored: white space around it trimmed, lower-cased by Unicode's rules (not a
    /// locale's) and in NFC; one word of 1 to 40 characters, each a letter of any script
    /// (general category L), a mark (M), a decimal digit (Nd), `-` or `_`. openapi.json's Tag
    /// schema states the same rule as a pattern, and Schemathesis holds the two together.
    ///
    /// ```swift
    /// try Library.normalisedTag("  SQL ")     // "sql"
    /// try Library.normalisedTag("İstanbul")   // "i̇stanbul" (i and a combining dot above, as Unicode lower-cases İ)
    /// try Library.normalisedTag("foo bar")    // throws LibraryError.invalidTag
    /// ```
    ///
    /// - Parameter raw: the tag as the user typed or sent it.
    /// - Returns: the tag as it is stored and compared.
    /// - Throws: ``LibraryError/invalidTag(_:reason:)`` for an empty tag, one too long or one that
    ///   is not a single word.
    public static func normalisedTag(_ raw: String) throws(LibraryError) -> String {
        let longer = "it is longer than \(maximumTagLength) characters"
        // Counted in bytes first, which costs nothing: a 50 MB value is refused at once.
        guard raw.utf8.count <= 4 * maximumTagLengthAsSent, raw.unicodeScalars.count <= maximumTagLengthAsSent else {
            throw .invalidTag(raw, reason: longer)
        }
        // White space by Unicode's White_Space property, as the schema's pattern lists it
        // (Foundation's set on Linux also takes U+200B, which is no space).
        let scalars = Array(raw.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { throw .invalidTag(raw, reason: "it is empty") }
        let word = scalars[first...last]
        guard word.count <= maximumTagLength else { throw .invalidTag(raw, reason: longer) }
        guard word.allSatisfy(isTagScalar) else {
            throw .invalidTag(raw, reason: "use one word of letters, digits, '-' and '_'")
        }
        var typed = String.UnicodeScalarView()
        typed.append(contentsOf: word)
        return String(typed).lowercased().precomposedStringWithCanonicalMapping
    }

    /// Whether a tag may hold `scalar`: a letter (L), a mark (M), a decimal digit (Nd), `-`, `_`.
    private static func isTagScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark,
            .spacingMark, .enclosingMark, .decimalNumber:
            true
        default: scalar == "-" || scalar == "_"
        }
    }

    static func normalisedTags(_ raw: [String]) throws(LibraryError) -> [String] {
        var tags: [String] = []
        for text in raw {
            let tag = try normalisedTag(text)
            if !tags.contains(tag) { tags.append(tag) }
        }
        return tags
    }

    // MARK: Favourites

    /// Makes an indexed comic a favourite and attaches `tags`; adding again keeps the first date.
    ///
    /// - Parameters:
    ///   - reference: the comic; nil is the comic shown last.
    ///   - tags: tags to attach, normalised as ``normalisedTag(_:)`` does.
    /// - Returns: the favourite as it is now, and what was new.
    /// - Throws: ``LibraryError/invalidTag(_:reason:)`` for a tag it refuses, what ``resolve(_:)``
    ///   throws for a comic the index does not hold, `StoreError` when the index cannot be
    ///   written.
    public func addFavourite(_ reference: ComicReference?, tags: [String] = []) throws -> FavouriteAddition {
        let tags = try Library.normalisedTags(tags)
        let id = try resolve(reference)
        guard let comic = try database.comic(id) else { throw LibraryError.notIndexed(id) }
        let before = try database.favourite(id)?.tags ?? []
        let merge = try database.addFavourite(id, tags: tags)
        guard let favourite = try database.favourite(id) else { throw LibraryError.notAFavourite(id) }
        logger.info("#\(id) written as a favourite, tags now: \(favourite.tags.joined(separator: ", "))")
        return FavouriteAddition(
            comic: comic, favourite: favourite, isNew: !merge.addedFavourites.isEmpty,
            addedTags: tags.filter { !before.contains($0) })
    }

    /// Makes an indexed comic a favourite with exactly `tags` (those it had and `tags` lacks are
    /// detached): what `PUT /api/favourites/{n}` asks, the same whether it is sent once or twice.
    ///
    /// - Parameters:
    ///   - reference: the comic.
    ///   - tags: every tag the favourite is to carry, normalised as ``normalisedTag(_:)`` does.
    /// - Returns: the favourite as it is now.
    /// - Throws: what ``addFavourite(_:tags:)`` throws.
    public func setFavourite(_ reference: ComicReference, tags: [String]) throws -> FavouriteEntry {
        let added = try addFavourite(reference, tags: tags)
        let kept = try Library.normalisedTags(tags)
        let others = added.favourite.tags.filter { !kept.contains($0) }
        if !others.isEmpty {
            _ = try untag(.number(added.comic.id), removing: others)
        }
        guard let favourite = try database.favourite(added.comic.id) else {
            throw LibraryError.notAFavourite(added.comic.id)
        }
        return FavouriteEntry(favourite: favourite, comic: added.comic)
    }

    /// Removes a favourite (the comic need not be indexed).
    ///
    /// - Parameter reference: the favourite; nil is the comic shown last.
    /// - Returns: the favourite that was removed.
    /// - Throws: ``LibraryError/notAFavourite(_:)`` when the comic is not one, `StoreError` when
    ///   the index cannot be written.
    public func removeFavourite(_ reference: ComicReference?) throws -> FavouriteEntry {
        let id = try favouriteNumber(reference)
        guard let favourite = try database.favourite(id) else { throw LibraryError.notAFavourite(id) }
        try database.removeFavourite(id)
        logger.info("#\(id) removed from the favourites")
        return FavouriteEntry(favourite: favourite, comic: try database.comic(id))
    }

    /// Attaches tags to a favourite.
    ///
    /// - Parameters:
    ///   - reference: the favourite; nil is the comic shown last.
    ///   - tags: the tags to attach, normalised as ``normalisedTag(_:)`` does.
    /// - Returns: the tags that were new; those it carried already are left out.
    /// - Throws: ``LibraryError/invalidTag(_:reason:)``, ``LibraryError/notAFavourite(_:)``;
    ///   `StoreError` when the index cannot be written.
    public func tag(_ reference: ComicReference?, with tags: [String]) throws -> [String] {
        let tags = try Library.normalisedTags(tags)
        let id = try favouriteNumber(reference)
        guard let added = try database.addTags(tags, to: id) else { throw LibraryError.notAFavourite(id) }
        return added
    }

    /// Detaches tags from a favourite.
    ///
    /// - Parameters:
    ///   - reference: the favourite; nil is the comic shown last.
    ///   - tags: the tags to detach, normalised as ``normalisedTag(_:)`` does.
    /// - Returns: the tags that were attached; those it did not carry are left out.
    /// - Throws: ``LibraryError/invalidTag(_:reason:)``, ``LibraryError/notAFavourite(_:)``;
    ///   `StoreError` when the index cannot be written.
    public func untag(_ reference: ComicReference?, removing tags: [String]) throws -> [String] {
        let tags = try Library.normalisedTags(tags)
        let id = try favouriteNumber(reference)
        guard let removed = try database.removeTags(tags, from: id) else { throw LibraryError.notAFavourite(id) }
        return removed
    }

    /// The favourites by number, or only those tagged `tag`.
    ///
    /// - Parameter tag: the tag to keep, normalised first; nil keeps every favourite.
    /// - Returns: the favourites, each with its comic when the index holds it.
    /// - Throws: ``LibraryError/invalidTag(_:reason:)`` for a tag it refuses, `StoreError` when
    ///   the index cannot be read.
    public func favourites(taggedWith tag: String? = nil) throws -> [FavouriteEntry] {
        let tag = try tag.map { raw throws(LibraryError) in try Library.normalisedTag(raw) }
        let entries = try database.favourites(taggedWith: tag).map { favourite in
            FavouriteEntry(favourite: favourite, comic: try database.comic(favourite.id))
        }
        logger.info("favourites read: \(entries.count)\(tag.map { " tagged \($0)" } ?? "")")
        return entries
    }

    /// Every tag with how many favourites carry it.
    ///
    /// - Returns: the tags in use, by tag.
    /// - Throws: `StoreError` when the index cannot be read.
    public func tagCounts() throws -> [TagCount] {
        try database.tagCounts()
    }

    /// A number for the favourite commands: any number from 1 up, so that a favourite whose
    /// comic is not indexed can still be changed; `latest`, `random` and nil resolve as usual.
    private func favouriteNumber(_ reference: ComicReference?) throws -> Comic.ID {
        if case .number(let n) = reference {
            guard n >= 1 else { throw LibraryError.belowFirst(n) }
            return n
        }
        return try resolve(reference)
    }

    // MARK: Export and import

    /// The favourites as a ``FavouritesDocument``, pretty-printed JSON with sorted keys.
    ///
    /// - Parameter date: the time written as `exported`.
    /// - Returns: the file's bytes, ending in a line feed.
    /// - Throws: `StoreError` when the index cannot be read.
    public func exportFavourites(at date: Date = Date()) throws -> Data {
        let entries = try favourites().map { entry in
            FavouritesDocument.Entry(
                num: entry.favourite.id, title: entry.comic?.title ?? "", added: entry.favourite.addedAt,
                tags: entry.favourite.tags)
        }
        let document = FavouritesDocument(
            format: FavouritesDocument.formatName, version: FavouritesDocument.currentVersion, exported: date,
            favourites: entries)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(document) + Data("\n".utf8)
    }

    /// Merges an export back: new favourites keep the file's date, existing ones keep theirs and
    /// gain the file's tags. Importing the same file twice adds nothing the second time.
    ///
    /// The whole file is checked before anything is written, so a malformed file changes nothing.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - source: how to name the file in messages.
    ///   - date: the date a favourite without `added` gets.
    /// - Returns: how many favourites the file held and what it added.
    /// - Throws: ``LibraryError/malformedExport(source:reason:)`` saying what is wrong,
    ///   ``LibraryError/importRefused(source:reason:)`` for a comic the index does not hold,
    ///   `StoreError` when the index cannot be read or written.
    public func importFavourites(_ data: Data, source: String = "the file", at date: Date = Date()) throws
        -> FavouriteImport
    {
        let favourites: [Favourite]
        do {
            favourites = try Library.decodeFavourites(data, now: date)
        } catch let reason as ImportProblem {
            throw LibraryError.malformedExport(source: source, reason: reason.text)
        }
        // A comic the index lacks is refused as `fav add` refuses it, and the whole file with it.
        let indexed = Set(try database.comicIDs())
        for (index, favourite) in favourites.enumerated() where !indexed.contains(favourite.id) {
            do {
                _ = try resolve(.number(favourite.id))
            } catch let error as LibraryError {
                throw LibraryError.importRefused(source: source, reason: "favourites[\(index)]: \(error)")
            }
        }
        let merge = try database.mergeFavourites(favourites)
        return FavouriteImport(
            entries: favourites.count, addedFavourites: merge.addedFavourites, addedTags: merge.addedTags)
    }

    private struct ImportProblem: Error { var text: String }

    private static func decodeFavourites(_ data: Data, now: Date) throws -> [Favourite] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = parseISO8601(text) { return date }
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "is not an ISO 8601 date like 2026-08-08T12:00:00Z"))
        }
        // The format comes first, so that any other JSON file is named for what it is.
        struct Header: Decodable {
            var format: String?
            var version: Int?
        }
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch {
            throw ImportProblem(text: describe(error))
        }
        guard header.format == FavouritesDocument.formatName else {
            throw ImportProblem(
                text: header.format.map { "its format is \(quoted($0)), not '\(FavouritesDocument.formatName)'" }
                    ?? "it has no \"format\": \"\(FavouritesDocument.formatName)\"")
        }
        guard let version = header.version else { throw ImportProblem(text: "it has no \"version\"") }
        guard version == FavouritesDocument.currentVersion else {
            throw ImportProblem(text: "it is version \(version); this xkcd-search reads version 1")
        }
        let document: FavouritesDocument
        do {
            document = try decoder.decode(FavouritesDocument.self, from: data)
        } catch {
            throw ImportProblem(text: describe(error))
        }
        var favourites: [Favourite] = []
        for (index, entry) in document.favourites.enumerated() {
            guard entry.num >= 1 else {
                throw ImportProblem(text: "favourites[\(index)].num is \(entry.num); comic numbers start at 1")
            }
            guard entry.num != 404 else {
                throw ImportProblem(text: "favourites[\(index)].num is 404, which xkcd skipped on purpose")
            }
            let tags: [String]
            do {
                tags = try normalisedTags(entry.tags ?? [])
            } catch {
                throw ImportProblem(text: "favourites[\(index)].tags: \(error)")
            }
            favourites.append(Favourite(id: entry.num, addedAt: entry.added ?? now, tags: tags))
        }
        return favourites
    }

    private static func parseISO8601(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// A decoding error as "favourites[2].num should be a number", never Foundation's long text.
    private static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "the top level" : text
        }
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context):
            let at = context.codingPath.isEmpty ? "it" : path(context.codingPath)
            return "\(at) has no \"\(key.stringValue)\""
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) should be \(describe(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "it is not valid JSON" }
            return "\(path(context.codingPath)) \(context.debugDescription)"
        @unknown default:
            return "it cannot be read"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "a number"
        case is String.Type, is Date.Type: "a string"
        case is [String].Type: "a list of strings"
        case is [FavouritesDocument.Entry].Type: "a list of favourites"
        // What JSONDecoder names when a list is not one.
        case _ where String(describing: type).hasPrefix("Array"): "a list"
        case _ where String(describing: type).hasPrefix("Dictionary"): "an object"
        default: "an object"
        }
    }
}
