import Foundation
import Logging
import XKCDFetch
import XKCDFiles
import XKCDKit
import XKCDModel

/// Why a comic's image cannot be had. Short, lowercase, one line after "no image: ".
public enum ImageUnavailable: Error, Equatable, Sendable, CustomStringConvertible {
    /// The comic's `img` names no image (#1608 and #1663, both interactive).
    case noImage(comic: Comic.ID)
    /// The server answered 404.
    case notFound(url: String)
    /// No network, a timeout, a 5xx on every try…; `cause` is the same for every image of a
    /// host that is down (``FetchError/cause``).
    case fetchFailed(reason: String, cause: String)
    /// The server answered with something that is no usable image (the caller's check said why).
    case unusable(reason: String)

    public var description: String {
        switch self {
        case .noImage(let id):
            "#\(id) has no image of its own: it is an interactive comic, at \(Comic.url(for: id))"
        case .notFound(let url):
            "\(url) does not exist (HTTP 404)"
        case .fetchFailed(let reason, _), .unusable(let reason):
            reason
        }
    }
}

/// What ``ImageFetcher/fetchMissing(_:width:progress:)`` did.
public struct ImageReport: Sendable {
    public var fetched = 0
    public var alreadyKept = 0
    /// Comics with no image, and images the server does not have (404): asking again will not help.
    public var unavailable: [Comic.ID] = []
    /// Failed this run (network, 5xx, could not write); the next run asks again.
    public var failures: [(id: Comic.ID, reason: String)] = []
    /// Why the run stopped before the end: the same failure for every image of a run of
    /// ``ImageFetcher/consecutiveFailureLimit`` (a host that refuses every connection).
    public var stoppedBecause: String?
    /// Whether the run was cancelled (Ctrl-C) before the end.
    public var isInterrupted = false
}

/// Fetches comic images through ``HTTPComicSource`` into an ``ImageCache``, once each.
///
/// The image is asked for at the `img` URL's path under `baseURL` (imgs.xkcd.com, or a test
/// server). The `_2x` versions are not asked for: docs/images.md says why.
public struct ImageFetcher: Sendable {
    public var source: HTTPComicSource
    public var cache: ImageCache
    public var baseURL: URL

    public init(source: HTTPComicSource, cache: ImageCache, baseURL: URL) {
        self.source = source
        self.cache = cache
        self.baseURL = baseURL
    }

    /// Who waits for an image, which decides how long its server is given: the one place the
    /// indexer, `show` and the server choose how an image is fetched.
    public enum Wait: Sendable {
        /// A person at a terminal, the text already shown: a server that accepts the connection
        /// and never answers is given up after `idle` without a byte (3 s unless set), a slow
        /// one 2 s later, each tried once more; a `Retry-After` is waited 1 s at most. The
        /// longest wait is about 7 s, not the 2 minutes of four 30-second tries.
        case terminal(idle: Duration?)
        /// A client of the server waiting for its answer: `timeout` without a byte, 3 s more in
        /// all, each tried once more; a `Retry-After` is waited 1 s at most.
        case request(timeout: Duration)
        /// An index run fetching every image: as many at once, and as patient, as its fetches
        /// of comics.
        case indexRun(maxConcurrentRequests: Int, requestTimeout: Duration)

        var configuration: HTTPComicSource.Configuration {
            switch self {
            case .terminal(let idle):
                let idle = idle ?? .seconds(3)
                return HTTPComicSource.Configuration(
                    requestTimeout: idle, requestDeadline: idle + .seconds(2),
                    retryPolicy: HTTPComicSource.RetryPolicy(maxAttempts: 2, maxRetryAfter: .seconds(1)))
            case .request(let timeout):
                return HTTPComicSource.Configuration(
                    requestTimeout: timeout, requestDeadline: timeout + .seconds(3),
                    retryPolicy: .init(maxAttempts: 2, maxRetryAfter: .seconds(1)))
            case .indexRun(let maxConcurrentRequests, let requestTimeout):
                var configuration = HTTPComicSource.Configuration()
                configuration.maxConcurrentRequestsPerHost = maxConcurrentRequests
                configuration.requestTimeout = requestTimeout
                return configuration
            }
        }
    }

    /// The fetcher for images kept in `cache`, fetched from `baseURL` (imgs.xkcd.com, or
    /// `--image-url`) as patiently as `wait` says.
    ///
    /// - Parameters:
    ///   - cache: where images are kept and remembered as missing.
    ///   - baseURL: the image server.
    ///   - wait: who waits, which decides the timeouts and retries.
    ///   - logger: where the requests are logged.
    public init(cache: ImageCache, baseURL: URL, wait: Wait, logger: Logger) {
        self.init(
            source: HTTPComicSource(configuration: wait.configuration, logger: logger), cache: cache,
            baseURL: baseURL)
    }

    /// How many images in a row may fail for the same cause before a run stops: a host that
    /// refuses every connection would otherwise be asked for all 3,000 images.
    public static let consecutiveFailureLimit = 10

    /// The kept image, or else the image fetched now and kept. An image that cannot be had is
    /// remembered as missing (``ImageCache/rememberMissing(comic:imageURL:reason:)``), so that
    /// `show` does not wait for it again for a while.
    ///
    /// - Parameters:
    ///   - id: the comic's number, under which the image is kept.
    ///   - imageURL: the comic's `img` from its JSON; one that names no image is
    ///     ``ImageUnavailable/noImage(comic:)``.
    ///   - check: throws ``ImageUnavailable/unusable(reason:)`` for fetched bytes that
    ///     are no usable image (the server decodes them first), which are then not kept.
    /// - Returns: the image's bytes, kept or just fetched (shown even when they cannot be kept).
    /// - Throws: ``ImageUnavailable``: `.noImage` for an interactive comic, `.notFound` when the
    ///   server answers 404, `.fetchFailed` when the network fails on every try (or the task is
    ///   cancelled), and what `check` throws. All but `.noImage` are remembered as missing, unless
    ///   the task was cancelled.
    public func image(
        comic id: Comic.ID, imageURL: String, check: (Data) throws(ImageUnavailable) -> Void = { _ in }
    ) async throws(ImageUnavailable) -> Data {
        if let kept = cache.image(comic: id, imageURL: imageURL) { return kept }
        let data: Data
        do throws(ImageUnavailable) {
            data = try await fetch(comic: id, imageURL: imageURL)
            try check(data)
        } catch {
            if case .noImage = error {
            } else if !Task.isCancelled {
                cache.rememberMissing(comic: id, imageURL: imageURL, reason: error.description)
            }
            throw error
        }
        try? cache.keep(data, comic: id, imageURL: imageURL)  // shown even when it cannot be kept
        return data
    }

    /// Fetches the images the cache lacks, `width` at a time (the source limits each host too).
    /// Stops early when the task is cancelled (``ImageReport/isInterrupted``) or after
    /// ``consecutiveFailureLimit`` failures in a row for the same cause
    /// (``ImageReport/stoppedBecause``); what was kept stays.
    public func fetchMissing(
        _ comics: [(id: Comic.ID, imageURL: String)], width: Int,
        progress: @escaping @Sendable (IndexProgress) -> Void = { _ in }
    ) async -> ImageReport {
        var report = ImageReport()
        let missing = comics.filter { comic in
            guard ImageCache.fileName(comic: comic.id, imageURL: comic.imageURL) != nil else {
                report.unavailable.append(comic.id)
                return false
            }
            if cache.contains(comic: comic.id, imageURL: comic.imageURL) {
                report.alreadyKept += 1
                return false
            }
            return true
        }
        var state = IndexProgress(completed: 0, total: missing.count, failed: 0)
        progress(state)
        await withTaskGroup(of: (Comic.ID, Result<Void, ImageUnavailable>).self) { group in
            var next = missing.makeIterator()
            var run: (cause: String, count: Int)?
            func enqueue() {
                guard !Task.isCancelled, report.stoppedBecause == nil, let comic = next.next() else { return }
                group.addTask {
                    do throws(ImageUnavailable) {
                        let data = try await fetch(comic: comic.id, imageURL: comic.imageURL)
                        do {
                            try cache.keep(data, comic: comic.id, imageURL: comic.imageURL)
                        } catch {
                            let reason = "could not keep it: \(error.localizedDescription)"
                            return (comic.id, .failure(.fetchFailed(reason: reason, cause: reason)))
                        }
                        return (comic.id, .success(()))
                    } catch {
                        return (comic.id, .failure(error))
                    }
                }
            }
            for _ in 0..<max(1, width) { enqueue() }
            while let (id, result) = await group.next() {
                // A transfer cut short by Ctrl-C is neither fetched nor failed.
                if Task.isCancelled {
                    report.isInterrupted = true
                    group.cancelAll()
                    continue
                }
                switch result {
                case .success:
                    report.fetched += 1
                    run = nil
                case .failure(.notFound), .failure(.noImage):
                    report.unavailable.append(id)
                    run = nil
                case .failure(let error):
                    report.failures.append((id, error.description))
                    state.failed += 1
                    let cause = if case .fetchFailed(_, let cause) = error { cause } else { error.description }
                    run = (cause, (run?.cause == cause ? run?.count ?? 0 : 0) + 1)
                    if let run, run.count >= Self.consecutiveFailureLimit, report.stoppedBecause == nil {
                        report.stoppedBecause = "\(run.count) images in a row failed: \(run.cause)"
                    }
                }
                state.completed += 1
                progress(state)
                enqueue()
            }
        }
        // Cancelled before the first image, or while the last ones were in flight.
        if Task.isCancelled, report.fetched + report.unavailable.count + report.failures.count < missing.count {
            report.isInterrupted = true
        }
        report.unavailable.sort()
        report.failures.sort { $0.id < $1.id }
        return report
    }

    /// The `img` URL's path under `baseURL`: `https://imgs.xkcd.com/comics/x.png` → `<base>/comics/x.png`.
    public func url(forImage imageURL: String) -> URL? {
        guard let path = URLComponents(string: imageURL)?.percentEncodedPath, path.hasPrefix("/") else { return nil }
        let base =
            baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        return URL(string: base + path)
    }

    private func fetch(comic id: Comic.ID, imageURL: String) async throws(ImageUnavailable) -> Data {
        guard ImageCache.fileName(comic: id, imageURL: imageURL) != nil, let url = url(forImage: imageURL) else {
            throw .noImage(comic: id)
        }
        do {
            guard let response = try await source.image(at: url) else {
                throw ImageUnavailable.notFound(url: url.absoluteString)
            }
            return response.data
        } catch let error as ImageUnavailable {
            throw error
        } catch let error as FetchError {
            throw .fetchFailed(reason: error.description, cause: error.cause)
        } catch {
            throw .fetchFailed(reason: "\(error)", cause: "\(error)")
        }
    }
}
