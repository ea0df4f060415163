import FoundationEssentials

/// The bytes of one response exactly as received, and when they were received.
public struct RawResponse: Sendable, Hashable {
    public var data: Data
    public var fetchedAt: Date

    public init(data: Data, fetchedAt: Date = Date()) {
        self.data = data
        self.fetchedAt = fetchedAt
    }
}

/// What the explain xkcd wiki has for a comic.
public enum ExplainLookup: Sendable, Hashable {
    /// The `api.php?action=parse` JSON; decode it with ``ExplainAPI/decode(_:)``.
    case page(RawResponse)
    /// The wiki has no page for the comic yet (`missingtitle`, or no mirror file). Not a failure.
    case notWrittenYet
}

/// Where raw comic JSON and explain xkcd API responses come from: the web, a mirror directory, or the cache.
///
/// Sources return raw bytes so that they can be kept in a ``RawCache`` untouched; decode them with
/// ``XKCDJSON/decodeComic(_:)`` and ``ExplainAPI/decode(_:)``.
public protocol ComicSource: Sendable {
    /// The newest comic (`/info.0.json`).
    func latestComic() async throws -> RawResponse
    /// Comic `id`'s JSON; nil when the comic does not exist (HTTP 404, as #404 does, or no mirror file).
    func comic(_ id: Int) async throws -> RawResponse?
    /// The explain xkcd API response for comic `id`, or ``ExplainLookup/notWrittenYet``.
    func explanation(_ id: Int) async throws -> ExplainLookup
}
