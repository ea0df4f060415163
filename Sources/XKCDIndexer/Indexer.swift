import FoundationEssentials
import Logging
import XKCDFetch
import XKCDModel
import XKCDParse
import XKCDStore

/// How far an indexing run has got, for progress bars.
public struct IndexProgress: Sendable, Equatable {
    public var completed: Int
    public var total: Int
    public var failed: Int
}

/// What an indexing run did.
public struct IndexReport: Sendable {
    public var latest: Comic.ID
    /// Comics that were not in the index before this run, in ascending order.
    public var newComics: [(id: Comic.ID, title: String)]
    public var comicsFetched: Int
    public var explanationsFetched: Int
    /// Explanations fetched whose text may differ from what was stored: new ones, and those of
    /// another revision. A page asked for again that is still the same revision (an incomplete
    /// page rechecked, a mirror read again) is fetched but not changed.
    public var explanationsChanged = 0
    /// Comics that failed this run; the next run asks for them again.
    public var failures: [IndexFailure]
    public var elapsed: Duration
    /// The run was cancelled (Ctrl-C): what had been fetched is stored and searchable, the rest
    /// is left for the next run.
    public var isInterrupted = false
}

/// Fetches, parses and stores comics: the only place that knows the order of the stages.
///
/// A failed comic is recorded and retried by the next run; it never stops the run. Updates are
/// written in batches, each one transaction, so a killed run keeps what it had written and the
/// next run resumes from there.
public struct Indexer: Sendable {
    public enum Mode: Sendable {
        /// Ask for what the index lacks (and explanations that may have changed).
        case incremental
        /// Parse and store again the comics of `plan` (every number up to the latest when nil),
        /// then rebuild the full-text index.
        case rebuild(IndexPlan?)
    }

    let database: ComicDatabase
    let source: any ComicSource
    let logger: Logger
    let width: Int
    let batchSize: Int
    /// Today, for how high the latest comic number can believably be, and when this run asked
    /// (what the once-a-day rule for explanations that may still change counts from).
    let today: @Sendable () -> Date
    private let parser = ExplainPageParser()

    /// - Parameters:
    ///   - database: the index the comics and explanations are stored in.
    ///   - source: where responses come from; wrap a network source in a `CachingComicSource`
    ///     so that every raw response is kept.
    ///   - logger: told what the run indexes and each comic or explanation that failed.
    ///   - width: how many comics are in flight at once (the HTTP source also limits each host).
    ///   - batchSize: how many comics are stored in one transaction; one batch is written while
    ///     the next is fetched.
    ///   - today: the current date, read when the run starts (see ``today``); tests fix it.
    public init(
        database: ComicDatabase, source: any ComicSource, logger: Logger,
        width: Int = 8, batchSize: Int = 64, today: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.today = today
        self.database = database
        self.source = source
        self.logger = logger
        self.width = max(1, width)
        self.batchSize = max(1, batchSize)
    }

    public func run(
        mode: Mode = .incremental, progress: @escaping @Sendable (IndexProgress) -> Void = { _ in }
    ) async throws -> IndexReport {
        let clock = ContinuousClock()
        let start = clock.now
        // The run's own time: when it asked, for the once-a-day rule of ComicDatabase.plan.
        let now = today()
        let latestResponse = try await source.latestComic()
        let latest = try decodeComic(latestResponse.data)
        try checkBelievable(latest: latest.id)

        let plan: IndexPlan
        switch mode {
        case .incremental: plan = try database.plan(upTo: latest.id, now: now)
        case .rebuild(let given?):
            // The latest comic is kept as "the latest", not under its number: always include it.
            plan = IndexPlan(
                comics: Array(Set(given.comics).union([latest.id])).sorted(), explanations: given.explanations)
        case .rebuild(nil):
            plan = IndexPlan(comics: Array(1...max(1, latest.id)), explanations: Array(1...max(1, latest.id)))
        }
        let wanted = (comics: Set(plan.comics), explanations: Set(plan.explanations))
        let known = Set(try database.comicIDs())
        let storedRevisions = try database.explanationRevisions()
        let ids = plan.ids
        logger.info("indexing", metadata: ["latest": "\(latest.id)", "numbers": "\(ids.count)"])

        var report = IndexReport(
            latest: latest.id, newComics: [], comicsFetched: 0, explanationsFetched: 0, failures: [],
            elapsed: .zero)
        var pending: [ComicUpdate] = []
        var state = IndexProgress(completed: 0, total: ids.count, failed: 0)
        progress(state)

        var writing: Task<Void, any Error>?
        try await withThrowingTaskGroup(of: ComicUpdate.self) { group in
            var next = ids.makeIterator()
            func enqueue() {
                guard let id = next.next() else { return }
                group.addTask {
                    await update(
                        id: id, latest: latest, latestResponse: latestResponse,
                        wantsComic: wanted.comics.contains(id), wantsExplanation: wanted.explanations.contains(id))
                }
            }
            for _ in 0..<width { enqueue() }
            while let update = try await group.next() {
                // Cancelled: what is pending is kept, what is in flight is left for the next run.
                if Task.isCancelled { return group.cancelAll() }
                enqueue()
                pending.append(update)
                tally(update, known: known, storedRevisions: storedRevisions, into: &report)
                state.completed += 1
                if update.isFailure { state.failed += 1 }
                if pending.count >= batchSize {
                    // One batch is written while the next is fetched and parsed; batches still go
                    // in order, each its own transaction.
                    try await writing?.value
                    let batch = pending
                    pending.removeAll(keepingCapacity: true)
                    writing = Task { [database] in try database.apply(batch, attemptedAt: now) }
                }
                progress(state)
            }
        }
        try await writing?.value
        try database.apply(pending, attemptedAt: now)
        if Task.isCancelled {
            // Every kind of query finds what was stored: plain words are ranked from this index.
            try database.rebuildRankingIndex()
            report.isInterrupted = true
            report.elapsed = clock.now - start
            return report
        }
        if case .rebuild = mode {
            try database.rebuildFullTextIndex()
        }
        if ids.count >= 200 {
            try database.optimizeFullTextIndex()
        }
        // Also when a run stopped after storing its last batch but before this.
        if try !ids.isEmpty || !database.rankingIndexIsCurrent() {
            try database.rebuildRankingIndex()
        }
        try database.setLastUpdate(Date())
        report.failures = try database.failures()
        report.newComics.sort { $0.id < $1.id }
        report.elapsed = clock.now - start
        return report
    }

    /// Throws unless `latest` is a number xkcd could have reached by today: from 1 to one comic
    /// a day past the index's latest (or past the first comic, of 2006-01-01, for an empty
    /// index), and 100 more. xkcd publishes about three a week, so only a server's mistake or
    /// lie goes past that, and the bound is what keeps the work a run plans bounded.
    private func checkBelievable(latest: Comic.ID) throws {
        guard latest >= 1 else { throw IndexError.unbelievableLatest(latest, reason: "xkcd numbers its comics from 1") }
        let known = try database.latestComicID().flatMap { id in try database.comic(id).map { (id: id, date: $0.date) }
        }
        let highest = Self.highestBelievableLatest(known: known, today: today())
        guard latest <= highest else {
            let since = known.map { "the index's latest is #\($0.id) of \($0.date)" } ?? "xkcd began in 2006"
            throw IndexError.unbelievableLatest(
                latest, reason: "\(since), and xkcd publishes about three comics a week: at most #\(highest) by today")
        }
    }

    /// The highest latest comic number believable on `today`, given the index's latest comic
    /// (nil when the index has none).
    static func highestBelievableLatest(known: (id: Comic.ID, date: ComicDate)?, today: Date) -> Int {
        let (id, date) = known ?? (0, ComicDate(year: 2006, month: 1, day: 1))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day)) ?? today
        let days = calendar.dateComponents([.day], from: start, to: today).day ?? 0
        return id + max(0, days) + 100
    }

    private func tally(
        _ update: ComicUpdate, known: Set<Comic.ID>, storedRevisions: [Comic.ID: Int], into report: inout IndexReport
    ) {
        if case .fetched(let comic, _) = update.comic {
            report.comicsFetched += 1
            if !known.contains(comic.id) { report.newComics.append((comic.id, comic.title)) }
        }
        if case .fetched(let explanation, _) = update.explanation {
            report.explanationsFetched += 1
            if explanation.revision == nil || explanation.revision != storedRevisions[update.id] {
                report.explanationsChanged += 1
            }
        }
    }

    /// Fetches and parses one number; every failure becomes an outcome, never a throw.
    private func update(
        id: Comic.ID, latest: Comic, latestResponse: RawResponse, wantsComic: Bool, wantsExplanation: Bool
    ) async -> ComicUpdate {
        var comic: ComicUpdate.Outcome<Comic> = .unchanged
        if wantsComic {
            if id == latest.id {
                comic = .fetched(latest, at: latestResponse.fetchedAt)
            } else {
                comic = await fetchComic(id)
            }
        }
        var explanation: ComicUpdate.Outcome<Explanation> = .unchanged
        if wantsExplanation, case .absent = comic {
            // No comic (#404 on xkcd), but explainxkcd may still have a page: keep it out of the index.
        } else if wantsExplanation {
            explanation = await fetchExplanation(id)
        }
        return ComicUpdate(id: id, comic: comic, explanation: explanation)
    }

    private func fetchComic(_ id: Comic.ID) async -> ComicUpdate.Outcome<Comic> {
        do {
            guard let response = try await source.comic(id) else { return .absent }
            return .fetched(try decodeComic(response.data), at: response.fetchedAt)
        } catch {
            logger.warning("comic failed", metadata: ["comic": "\(id)", "error": "\(error)"])
            return .failed("\(error)")
        }
    }

    private func fetchExplanation(_ id: Comic.ID) async -> ComicUpdate.Outcome<Explanation> {
        do {
            guard case .page(let response) = try await source.explanation(id) else { return .absent }
            guard let page = try ExplainAPI.decode(response.data) else { return .absent }
            var parsed = try parser.parse(html: page.html)
            if !page.categories.isEmpty { parsed.categories = page.categories }
            let explanation = Explanation(
                comicID: id, pageTitle: page.title, page: parsed, categories: parsed.categories, revision: page.revision
            )
            return .fetched(explanation, at: response.fetchedAt)
        } catch {
            logger.warning("explanation failed", metadata: ["comic": "\(id)", "error": "\(error)"])
            return .failed("explanation: \(error)")
        }
    }

    /// The xkcd JSON as plain text: #259's title is "Clich&eacute;d Exchanges", #472's has a `<span>`.
    private func decodeComic(_ data: Data) throws -> Comic {
        var comic = try XKCDJSON.decodeComic(data)
        comic.title = try HTMLText.plainText(comic.title)
        comic.safeTitle = try HTMLText.plainText(comic.safeTitle)
        comic.alt = try HTMLText.decodingEntities(comic.alt)
        comic.transcript = try HTMLText.decodingEntities(comic.transcript)
        return comic
    }
}

extension ComicUpdate {
    var isFailure: Bool {
        if case .failed = comic { return true }
        if case .failed = explanation { return true }
        return false
    }
}
