import FoundationEssentials
import Logging
import XKCDEmbed
import XKCDFetch
import XKCDFiles
import XKCDImage
import XKCDKit
import XKCDParse
import XKCDStore

/// One `index` run, in the order its stages must go: the index-run lock, the source (a mirror,
/// the kept responses, or the network through the raw cache), explanations of an earlier version
/// parsed again, then fetching → embedding, and images when asked. A front end starts it, shows
/// its events and words its outcome; it holds no terminal.
///
/// Cancelling the task that runs ``run(_:)`` or ``fetchImages(imagesDirectory:baseURL:progress:)``
/// stops the stage under way, which keeps what it stored.
///
/// ```swift
/// let run = try IndexRun(databasePath: path, cacheDirectory: cache, options: options, logger: logger)
/// let outcome = try await run.run { event in … }
/// ```
public struct IndexRun: Sendable {
    public struct Options: Sendable {
        /// A local mirror laid out as xkcd/N/info.0.json and explainxkcd/api/N.json, read
        /// instead of the network.
        public var mirror: URL?
        /// Parse and index again every comic from the kept responses (or the mirror).
        public var rebuild = false
        /// The network: base URLs, requests in flight per site, timeouts.
        public var http = HTTPComicSource.Configuration()
        /// Precomputed vectors to take where they match the model and the text.
        public var vectors: String?
        /// Embed the comics for search by meaning.
        public var embeds = true
        /// A file of passages people linked comics to (``LinkedPassageFile``), to become the
        /// index's own; nil keeps those it holds.
        public var linkedPassages: String?

        public init() {}
    }

    public enum Stage: String, Sendable { case indexing, embedding }

    /// What happens as the run goes, for a front end to show.
    public enum Event: Sendable {
        /// Explanations an earlier version stored without what this one keeps of them (the links
        /// between comics) are parsed again, with no requests: how many.
        case parsingAgain(Int)
        /// They could not be (why); a rebuild will.
        case parsingAgainFailed(String)
        case progress(Stage, IndexProgress)
        case finished(Stage)
        /// There is no usable sentence model: the index is searched by words alone.
        case noModel(SemanticSearchError)
    }

    /// What fetching and embedding did; `vectors` is nil without a model or with `embeds` off.
    public struct Outcome: Sendable {
        public var report: IndexReport
        public var vectors: VectorReport?

        public var isInterrupted: Bool { report.isInterrupted || vectors?.isInterrupted == true }
    }

    public let database: ComicDatabase
    /// The paths and the sentence model the run was made with.
    let services: Services
    let lock: IndexRunLock?
    let cache: RawCache
    let options: Options
    let logger: Logger

    /// Takes the index-run lock of `databasePath`, held as long as this value lives (a second
    /// run stops at once, a reader knows one is building), and opens the index, creating it.
    ///
    /// - Parameters:
    ///   - services: where the index and the cache are, the logger and the sentence model.
    ///   - options: what the run fetches and how.
    /// - Throws: ``ParseError/libraryMissing(reason:)`` without libxml2;
    ///   ``StoreError/indexRunInProgress(path:)`` when another run holds the lock; what opening
    ///   the index throws.
    public init(services: Services, options: Options) throws {
        // Before anything is created: without libxml2 no page could be read.
        try ExplainPageParser.loadLibrary()
        lock = try ComicDatabase.lockForIndexing(at: services.paths.databasePath)
        database = try services.openForIndexing()
        cache = RawCache(directory: services.paths.cacheDirectory.appendingPathComponent("raw"))
        self.services = services
        self.options = options
        self.logger = services.logger
    }

    /// Fetches (or reads) what the index lacks, then embeds what changed.
    public func run(_ report: @escaping @Sendable (Event) -> Void = { _ in }) async throws -> Outcome {
        // Read first: a file that can't be used stops the run before it asks for anything.
        let linkedPassages = try options.linkedPassages.map(LinkedPassageFile.read)
        let (source, mode) = makeSource()
        // Explanations parsed again change the text the model reads, as a fetch does.
        var textChangedBeforeTheRun = false
        if case .incremental = mode, try database.explanationsNeedParsingAgain() {
            textChangedBeforeTheRun = true
            do {
                try await parseExplanationsAgain(report)
            } catch {
                report(.parsingAgainFailed(String(describing: error)))
            }
        }
        let indexer = Indexer(
            database: database, source: source, logger: logger,
            width: options.mirror == nil ? options.http.maxConcurrentRequestsPerHost * 2 : 4)
        let indexed = try await indexer.run(mode: mode) { report(.progress(.indexing, $0)) }
        report(.finished(.indexing))
        if case .rebuild = mode, !indexed.isInterrupted {
            try database.markExplanationsParsed()
            try database.vacuum()
        }
        if let linkedPassages {
            let (added, deleted) = try database.replaceLinkedPassages(linkedPassages)
            logger.info(
                "linked passages: \(linkedPassages.count) in the file, \(added) new, \(deleted) no longer there")
        }
        guard options.embeds, !indexed.isInterrupted, !Task.isCancelled else { return Outcome(report: indexed) }
        var textUnchanged = !textChangedBeforeTheRun && indexed.comicsFetched == 0 && indexed.explanationsChanged == 0
        if case .rebuild = mode { textUnchanged = false }
        return Outcome(report: indexed, vectors: try await embed(textUnchanged: textUnchanged, report))
    }

    /// Fetches every image the cache in `imagesDirectory` lacks, `http`'s requests in flight at once.
    /// How many comics the index keeps now: what an interrupted run says it leaves.
    public func comicCount() throws -> Int {
        try database.statistics().comics
    }

    public func fetchImages(
        imagesDirectory: URL, baseURL: URL, progress: @escaping @Sendable (IndexProgress) -> Void = { _ in }
    ) async throws -> ImageReport {
        let width = options.http.maxConcurrentRequestsPerHost
        let fetcher = ImageFetcher(
            cache: ImageCache(directory: imagesDirectory), baseURL: baseURL,
            wait: .indexRun(maxConcurrentRequests: width, requestTimeout: options.http.requestTimeout), logger: logger)
        let comics = try database.comicIDs().compactMap { id in try database.comic(id).map { (id, $0.imageURL) } }
        let report = await fetcher.fetchMissing(comics, width: width, progress: progress)
        // Hashed even when fetching stopped early: what is kept can be found by its picture.
        try hashImages(comics, in: ImageCache(directory: imagesDirectory))
        return report
    }

    /// Stores the perceptual hashes (``PerceptualHash/hashes(of:)``: the whole image's, its
    /// panels', an animation's later frames') of every kept image that has none yet, or ones made
    /// from another image URL, for `identify` to find a comic from its picture or a part of it.
    ///
    /// - Parameters:
    ///   - comics: each comic's number and image URL.
    ///   - cache: where the images are kept.
    /// - Throws: `StoreError` when the index cannot be written.
    func hashImages(_ comics: [(Comic.ID, String)], in cache: ImageCache) throws {
        let hashed = try database.hashedImageURLs()
        var hashes: [(id: Comic.ID, imageURL: String, hashes: [UInt64])] = []
        for (id, imageURL) in comics where hashed[id] != imageURL {
            guard let data = cache.image(comic: id, imageURL: imageURL),
                let frames = try? ImageDecoder.frames(data)
            else { continue }
            hashes.append((id, imageURL, Array(Set(frames.flatMap(PerceptualHash.hashes(of:)))).sorted()))
        }
        try database.storeImageHashes(hashes)
        logger.info("hashed \(hashes.count) comic images for identify")
    }

    /// The source of this run and how it runs: a mirror, the kept responses for a rebuild, or the
    /// network with every response kept.
    private func makeSource() -> (any ComicSource, Indexer.Mode) {
        if let mirror = options.mirror {
            return (MirrorComicSource(directory: mirror), options.rebuild ? .rebuild(nil) : .incremental)
        }
        if options.rebuild {
            return (
                CachedComicSource(cache: cache),
                .rebuild(IndexPlan(comics: cache.storedComicIDs(), explanations: cache.storedExplanationIDs()))
            )
        }
        _ = cache.removeLeftoverTemporaryFiles()
        return (
            CachingComicSource(
                upstream: HTTPComicSource(configuration: options.http, logger: logger), cache: cache, logger: logger),
            .incremental
        )
    }

    /// Brings the comics' sentence vectors up to date; nil without a usable model.
    private func embed(textUnchanged: Bool, _ report: @escaping @Sendable (Event) -> Void) async throws -> VectorReport?
    {
        let encoder: SentenceEncoder
        switch services.model.encoder() {
        case .success(let loaded): encoder = loaded
        case .failure(let problem):
            report(.noModel(problem))
            return nil
        }
        let indexer = VectorIndexer(database: database, encoder: encoder)
        var vectors = try await indexer.run(importingFrom: options.vectors, textUnchanged: textUnchanged) {
            report(.progress(.embedding, $0))
        }
        if !vectors.isInterrupted {
            (vectors.linkedPassagesEmbedded, vectors.writtenSituationsEmbedded) =
                try await indexer.embedLinkedPassages()
            vectors.isInterrupted = Task.isCancelled
        }
        report(.finished(.embedding))
        return vectors
    }

    /// Parses again, with no requests, the explanations an earlier version stored without what
    /// this one keeps of them (the links between comics): from the mirror, or from the kept
    /// responses. The run that follows fetches what is new as usual.
    private func parseExplanationsAgain(_ report: @Sendable (Event) -> Void) async throws {
        let local: any ComicSource
        let ids: [Int]
        if let mirror = options.mirror {
            local = MirrorComicSource(directory: mirror)
            ids = try database.explainedComicIDs()
        } else {
            local = CachedComicSource(cache: cache)
            ids = Array(Set(try database.explainedComicIDs()).intersection(cache.storedExplanationIDs())).sorted()
        }
        if !ids.isEmpty {
            report(.parsingAgain(ids.count))
            let indexer = Indexer(database: database, source: local, logger: logger, width: 4)
            _ = try await indexer.run(mode: .rebuild(IndexPlan(comics: [], explanations: ids)))
        }
        try database.markExplanationsParsed()
    }
}
