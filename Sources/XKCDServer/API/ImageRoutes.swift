import FoundationEssentials
import Hummingbird
import Logging
import Synchronization
import XKCDFiles
import XKCDImage
import XKCDIndexer
import XKCDKit

/// `GET /images/{n}`: the comic's image from the image cache (the one `show` fills); on a miss
/// fetched once through ``ImageFetcher``, decoded to be sure it is an image, kept, then served.
///
/// An image that could not be had (offline, 404, damaged) is remembered as missing by the cache
/// for ``ImageCache/missingFor`` and answered 404 meanwhile without asking again. Requests for
/// the same missing image while it is being fetched wait for that one fetch.
final class ImageRoutes: Sendable {
    let served: ServedIndex
    let deadline: Duration
    let cache: ImageCache
    let fetcher: ImageFetcher
    /// What "now" is for the remembered failures: the tests move it past their expiry.
    let now: @Sendable () -> Date
    let logger: Logger
    private let fetches = Mutex<[Comic.ID: Task<Result<Data, ImageUnavailable>, Never>]>([:])

    /// A week: a comic's image never changes under its name.
    static let maxAge = 7 * 24 * 3600

    /// - Parameters:
    ///   - baseURL: where an image the cache lacks is fetched (imgs.xkcd.com, `--image-url`).
    ///   - timeout: how long the image server may take to send a byte, each try.
    init(
        served: ServedIndex, deadline: Duration, directory: URL, baseURL: URL, timeout: Duration,
        now: @escaping @Sendable () -> Date, logger: Logger
    ) {
        self.served = served
        self.deadline = deadline
        cache = ImageCache(directory: directory)
        // Someone waits for the answer: `timeout` is 5 s unless set (`ImageFetcher.Wait`).
        fetcher = ImageFetcher(cache: cache, baseURL: baseURL, wait: .request(timeout: timeout), logger: logger)
        self.now = now
        self.logger = logger
    }

    var collection: RouteCollection<BasicRequestContext> {
        let routes = APIRoutes(deadline: deadline)
        routes.get("/images/:comic", use: image)
        return routes.collection
    }

    @Sendable func image(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let comic = try served.generation.index.library.comic(try comicNumber(context, naming: "an image"))
        return try await image(of: comic, for: request)
    }

    func image(of comic: Comic, for request: Request) async throws -> Response {
        let id = comic.id
        guard ImageCache.fileName(comic: id, imageURL: comic.imageURL) != nil else {
            throw APIError(
                .notFound, code: "no-image", message: "#\(id) has no image of its own: it is an interactive comic")
        }
        let data: Data
        if let kept = cache.image(comic: id, imageURL: comic.imageURL) {
            data = kept
        } else {
            switch await fetchOnce(comic) {
            case .success(let fetched): data = fetched
            case .failure(.unusable(let reason)):
                logger.notice("the image of #\(id) is refused: \(reason)")
                throw APIError(.badGateway, code: "bad-image", message: "the image server sent #\(id)'s image damaged")
            case .failure(let error):
                logger.notice("no image for #\(id): \(error)")
                throw unavailable(id)
            }
        }
        guard let type = Self.contentType(of: data) else { throw unavailable(id) }
        let response = Response(
            status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        return EntityTag.answer(response, for: request, body: data, cacheControl: "public, max-age=\(Self.maxAge)")
    }

    private func unavailable(_ id: Comic.ID) -> APIError {
        APIError(
            .notFound, code: "image-unavailable", message: "the image of #\(id) cannot be had now; try again later")
    }

    /// One fetch a comic at a time: a request that comes while one is under way waits for it.
    private func fetchOnce(_ comic: Comic) async -> Result<Data, ImageUnavailable> {
        let task = fetches.withLock { fetches in
            if let running = fetches[comic.id] {
                logger.info("#\(comic.id)'s image: waiting for the fetch under way")
                return running
            }
            let task = Task<Result<Data, ImageUnavailable>, Never> { [cache, fetcher, now] in
                defer { _ = self.fetches.withLock { $0.removeValue(forKey: comic.id) } }
                // Looked at again here: a fetch that ended just before this one began has kept
                // the image or remembered its failure.
                if let missing = cache.missing(comic: comic.id, imageURL: comic.imageURL, now: now()) {
                    return .failure(.fetchFailed(reason: missing.reason, cause: missing.reason))
                }
                do throws(ImageUnavailable) {
                    return .success(
                        try await fetcher.image(comic: comic.id, imageURL: comic.imageURL, check: Self.check))
                } catch {
                    return .failure(error)
                }
            }
            fetches[comic.id] = task
            return task
        }
        return await task.value
    }

    /// Decoded by the same decoder `show` draws with: a damaged image, or no image at all, is
    /// not kept.
    private static func check(_ data: Data) throws(ImageUnavailable) {
        do {
            _ = try ImageDecoder.decode(data)
        } catch {
            throw .unusable(reason: error.description)
        }
        guard contentType(of: data) != nil else { throw .unusable(reason: ImageError.unknownFormat.description) }
    }

    /// The type from the first bytes: the three formats xkcd publishes (and the decoder reads).
    static func contentType(of data: Data) -> String? {
        let head = [UInt8](data.prefix(4))
        if head == [0x89, 0x50, 0x4E, 0x47] { return "image/png" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if head == Array("GIF8".utf8) { return "image/gif" }
        return nil
    }
}
