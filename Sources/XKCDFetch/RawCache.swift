import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every raw response the indexer received, gzip-compressed on disk, so an index can be rebuilt
/// without a single request (``CachedComicSource``).
///
/// Layout under `directory` (the CLI passes `$XDG_CACHE_HOME/xkcd-search/raw`):
///
/// ```
/// xkcd/latest.json.gz      /info.0.json
/// xkcd/327.json.gz         /327/info.0.json
/// explain/327.json.gz      api.php?action=parse&page=327…
/// explain/3175.missing     empty: the wiki said "missingtitle" for 3175
/// ```
///
/// `fetchedAt` is the file's modification time, set explicitly (whole seconds) before the file is
/// moved into place, so copying the cache with `cp -p` or `rsync -t` keeps it. Files are written to a
/// temporary name in the same folder and renamed, so a killed process never leaves half a file under
/// a real name. A file that does not decompress is logged and treated as absent.
public struct RawCache: Sendable {
    /// Which response a file holds.
    public enum Key: Hashable, Sendable {
        case latest
        case comic(Int)
        case explanation(Int)
    }

    public let directory: URL
    private let logger: Logger

    /// - Parameters:
    ///   - directory: Created on the first write.
    ///   - logger: Where corrupt files are reported; silent by default.
    public init(
        directory: URL,
        logger: Logger = Logger(label: "xkcd-search.raw-cache", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.directory = directory
        self.logger = logger
    }

    /// The file that holds `key`'s response (which may not exist).
    public func fileURL(for key: Key) -> URL {
        switch key {
        case .latest: directory.appendingPathComponent("xkcd/latest.json.gz")
        case .comic(let id): directory.appendingPathComponent("xkcd/\(id).json.gz")
        case .explanation(let id): directory.appendingPathComponent("explain/\(id).json.gz")
        }
    }

    private func missingMarkerURL(forExplanation id: Int) -> URL {
        directory.appendingPathComponent("explain/\(id).missing")
    }

    // MARK: Writing

    /// Stores `response` for `key`, replacing what was there; for an explanation, also forgets an
    /// earlier "not written yet".
    ///
    /// - Throws: ``FetchError/cacheWriteFailed(path:reason:)``.
    public func store(_ response: RawResponse, for key: Key) throws {
        let url = fileURL(for: key)
        let compressed: Data
        do {
            compressed = try Gzip.compress(response.data)
        } catch {
            throw FetchError.cacheWriteFailed(path: url.path, reason: error.description)
        }
        try writeAtomically(compressed, to: url, modified: response.fetchedAt)
        if case .explanation(let id) = key {
            try? FileManager.default.removeItem(at: missingMarkerURL(forExplanation: id))
        }
    }

    /// Records that the wiki has no explanation for comic `id` yet (and drops any stored page).
    public func storeNotWrittenYet(_ id: Int, checkedAt: Date = Date()) throws {
        try writeAtomically(Data(), to: missingMarkerURL(forExplanation: id), modified: checkedAt)
        try? FileManager.default.removeItem(at: fileURL(for: .explanation(id)))
    }

    /// Stores whatever ``ComicSource/explanation(_:)`` answered.
    public func store(_ lookup: ExplainLookup, forExplanation id: Int) throws {
        switch lookup {
        case .page(let response): try store(response, for: .explanation(id))
        case .notWrittenYet: try storeNotWrittenYet(id)
        }
    }

    /// Deletes `key`'s file (and an explanation's "not written yet" marker); no error if absent.
    public func remove(_ key: Key) {
        try? FileManager.default.removeItem(at: fileURL(for: key))
        if case .explanation(let id) = key {
            try? FileManager.default.removeItem(at: missingMarkerURL(forExplanation: id))
        }
    }

    // MARK: Reading

    /// The stored response, with the `fetchedAt` it was stored with.
    ///
    /// - Returns: nil when nothing is stored, or when the file is corrupt (logged as a warning).
    /// - Throws: ``FetchError/unreadableFile(path:reason:)`` when the file exists but cannot be read.
    public func load(_ key: Key) throws -> RawResponse? {
        let url = fileURL(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let compressed: Data
        do {
            compressed = try Data(contentsOf: url)
        } catch {
            throw FetchError.unreadableFile(path: url.path, reason: Self.reason(error))
        }
        let data: Data
        do {
            data = try Gzip.decompress(compressed)
        } catch {
            logger.warning("ignoring corrupt raw cache file \(url.path): \(error)")
            return nil
        }
        return RawResponse(data: data, fetchedAt: modificationDate(url) ?? Date())
    }

    /// What the cache knows about comic `id`'s explanation: a page, "not written yet", or nil (never asked).
    public func explanationLookup(_ id: Int) throws -> ExplainLookup? {
        if let page = try load(.explanation(id)) { return .page(page) }
        if FileManager.default.fileExists(atPath: missingMarkerURL(forExplanation: id).path) { return .notWrittenYet }
        return nil
    }

    /// When the stored response for `key` was fetched, without reading it; nil when absent.
    public func fetchedAt(_ key: Key) -> Date? {
        modificationDate(fileURL(for: key))
    }

    /// Comics with a stored xkcd JSON file, ascending.
    public func storedComicIDs() -> [Int] {
        ids(in: "xkcd", suffix: ".json.gz")
    }

    /// Comics with a stored explain xkcd page, ascending.
    public func storedExplanationIDs() -> [Int] {
        ids(in: "explain", suffix: ".json.gz")
    }

    /// Comics whose explanation the wiki said was not written yet, ascending.
    public func notWrittenYetIDs() -> [Int] {
        ids(in: "explain", suffix: ".missing")
    }

    /// Deletes temporary files a killed process left behind; returns how many.
    @discardableResult
    public func removeLeftoverTemporaryFiles() -> Int {
        var removed = 0
        for folder in ["xkcd", "explain"] {
            let dir = directory.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") {
                if (try? FileManager.default.removeItem(at: dir.appendingPathComponent(name))) != nil { removed += 1 }
            }
        }
        return removed
    }

    // MARK: Files

    private func ids(in folder: String, suffix: String) -> [Int] {
        let dir = directory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(suffix) else { return nil }
            return Int(name.dropLast(suffix.count))
        }.sorted()
    }

    private func modificationDate(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    /// Writes `.NAME.UUID.tmp` beside `url`, stamps its mtime, then renames it over `url`.
    private func writeAtomically(_ data: Data, to url: URL, modified: Date) throws {
        let fileManager = FileManager.default
        let folder = url.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: temporary)
            let stamp = Date(timeIntervalSince1970: modified.timeIntervalSince1970.rounded(.down))
            try fileManager.setAttributes([.modificationDate: stamp], ofItemAtPath: temporary.path)
        } catch {
            try? fileManager.removeItem(at: temporary)
            throw FetchError.cacheWriteFailed(path: url.path, reason: Self.reason(error))
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? fileManager.removeItem(at: temporary)
            throw FetchError.cacheWriteFailed(path: url.path, reason: reason)
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(posix.code)))
        }
        return error.localizedDescription
    }
}

/// Serves only what a ``RawCache`` holds and never touches the network: `index --rebuild`.
///
/// A comic that is not cached is reported as absent (nil), an explanation that is not cached as
/// ``ExplainLookup/notWrittenYet``; only a missing latest comic is an error.
public struct CachedComicSource: ComicSource {
    public let cache: RawCache

    public init(cache: RawCache) {
        self.cache = cache
    }

    public func latestComic() async throws -> RawResponse {
        guard let response = try cache.load(.latest) else { throw FetchError.notCached(what: "the latest comic") }
        return response
    }

    public func comic(_ id: Int) async throws -> RawResponse? {
        try cache.load(.comic(id))
    }

    public func explanation(_ id: Int) async throws -> ExplainLookup {
        try cache.explanationLookup(id) ?? .notWrittenYet
    }
}

/// Passes requests to another source and keeps every answer in a ``RawCache`` on the way back.
///
/// It never answers from the cache itself: deciding what needs fetching is the indexer's job.
/// A response that cannot be written is logged as an error and still returned.
public struct CachingComicSource: ComicSource {
    public let upstream: any ComicSource
    public let cache: RawCache
    private let logger: Logger

    public init(upstream: any ComicSource, cache: RawCache, logger: Logger) {
        self.upstream = upstream
        self.cache = cache
        self.logger = logger
    }

    public func latestComic() async throws -> RawResponse {
        let response = try await upstream.latestComic()
        keep { try cache.store(response, for: .latest) }
        return response
    }

    public func comic(_ id: Int) async throws -> RawResponse? {
        guard let response = try await upstream.comic(id) else { return nil }
        keep { try cache.store(response, for: .comic(id)) }
        return response
    }

    public func explanation(_ id: Int) async throws -> ExplainLookup {
        let lookup = try await upstream.explanation(id)
        keep { try cache.store(lookup, forExplanation: id) }
        return lookup
    }

    private func keep(_ write: () throws -> Void) {
        do {
            try write()
        } catch {
            logger.error("\(error)")
        }
    }
}
