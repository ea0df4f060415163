import Foundation
import XKCDModel

/// Decodes the xkcd JSON API (`https://xkcd.com/327/info.0.json`).
///
/// Strings are kept exactly as the API sends them: HTML entities and the API's mojibake are left for
/// the parser module to clean up.
///
/// ```swift
/// let comic = try XKCDJSON.decodeComic(data)
/// comic.date.description // "2007-10-10"
/// ```
public enum XKCDJSON: Sendable {
    /// Decodes one comic.
    ///
    /// - Throws: ``FetchError/malformedJSON(source:detail:)`` when the bytes are not JSON (truncated),
    ///   ``FetchError/unexpectedJSON(source:detail:)`` when a required key is missing or the date is not a date.
    public static func decodeComic(_ data: Data) throws(FetchError) -> Comic {
        try decodeComic(data, source: "xkcd JSON")
    }

    /// Decodes one comic; `source` (a URL or a file path) goes into error messages.
    public static func decodeComic(_ data: Data, source: String) throws(FetchError) -> Comic {
        let dto: ComicDTO
        do {
            dto = try JSONDecoder().decode(ComicDTO.self, from: data)
        } catch let error as DecodingError {
            throw jsonError(error, source: source)
        } catch {
            throw .malformedJSON(source: source, detail: "\(error)")
        }
        guard let year = Int(dto.year), let month = Int(dto.month), let day = Int(dto.day),
            (1...12).contains(month), (1...31).contains(day)
        else {
            throw .unexpectedJSON(source: source, detail: "bad date \(dto.year)-\(dto.month)-\(dto.day)")
        }
        return Comic(
            id: dto.num.value, title: dto.title, safeTitle: dto.safe_title ?? "", alt: dto.alt ?? "",
            transcript: dto.transcript ?? "", imageURL: dto.img ?? "", link: dto.link ?? "",
            news: dto.news ?? "", date: ComicDate(year: year, month: month, day: day))
    }

    /// The comic number alone, for a cheap look at `/info.0.json`.
    public static func comicID(_ data: Data, source: String = "xkcd JSON") throws(FetchError) -> Int {
        try decodeComic(data, source: source).id
    }

    // Keys as the API spells them.
    private struct ComicDTO: Decodable {
        var num: ComicNumber
        var title: String
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // The API's own key, decoded as it is spelt.
        var safe_title: String?
        var alt: String?
        var transcript: String?
        var img: String?
        var link: String?
        var news: String?
        var year: String
        var month: String
        var day: String
    }
}

/// A comic number: a whole number. `1e30` or `3.5` is said to be no comic number, not JSON
/// that cannot be read.
private struct ComicNumber: Decodable {
    var value: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            value = try container.decode(Int.self)
        } catch {
            guard let number = try? container.decode(Double.self) else { throw error }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(number) is not a comic number")
        }
    }
}

/// Maps a `DecodingError` to the ``FetchError`` a user should see.
func jsonError(_ error: DecodingError, source: String) -> FetchError {
    switch error {
    case .dataCorrupted(let context) where context.codingPath.isEmpty:
        return .malformedJSON(source: source, detail: underlyingMessage(context))
    case .dataCorrupted(let context):
        return .unexpectedJSON(source: source, detail: "\(path(context.codingPath)): \(context.debugDescription)")
    case .keyNotFound(let key, let context):
        return .unexpectedJSON(source: source, detail: "missing key \(path(context.codingPath + [key]))")
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        return .unexpectedJSON(source: source, detail: "\(path(context.codingPath)): \(context.debugDescription)")
    @unknown default:
        return .malformedJSON(source: source, detail: "\(error)")
    }
}

private func path(_ keys: [any CodingKey]) -> String {
    keys.isEmpty ? "top level" : keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
}

private func underlyingMessage(_ context: DecodingError.Context) -> String {
    if let underlying = context.underlyingError as? NSError,
        let message = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
    {
        return message
    }
    return context.debugDescription
}
