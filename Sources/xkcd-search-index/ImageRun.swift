import Foundation
import XKCDCommandLine
import XKCDIndexer
import XKCDKit

extension XKCDSearchIndex {
    /// `index --images`: every image the cache lacks, with the progress bar and one line of summary.
    func fetchImages(_ database: ComicDatabase) async throws -> ImageReport {
        var configuration = HTTPComicSource.Configuration()
        configuration.maxConcurrentRequestsPerHost = options.concurrency
        configuration.requestTimeout = .milliseconds(Int(options.timeout * 1000))
        let cache = ImageCache(directory: global.paths.imagesDirectory)
        let fetcher = ImageFetcher(
            source: HTTPComicSource(configuration: configuration, logger: global.makeLogger()), cache: cache,
            baseURL: URL(string: options.imageURL)!)
        let comics = try database.comicIDs().compactMap { id in try database.comic(id).map { (id, $0.imageURL) } }
        let bar = Terminal.isStandardErrorATerminal && !options.json ? ProgressBar(label: "images") : nil
        let report = await fetcher.fetchMissing(comics, width: options.concurrency) { progress in
            bar?.update(completed: progress.completed, total: progress.total, failed: progress.failed)
        }
        bar?.finish()
        let usage = cache.usage()
        var line = "images: \(report.fetched) fetched, \(report.alreadyKept) already kept, \(report.unavailable.count) without one"
        line += "; \(usage.images) kept (\(Terminal.size(usage.bytes))) in \(cache.directory.path)"
        if !report.failures.isEmpty {
            line += "; \(report.failures.count) failed, retried by the next run: "
                + report.failures.map { "#\($0.id): \(sanitized($0.reason))" }.joined(separator: "; ")
        }
        if options.json { Terminal.printError(line) } else { print(line) }
        return report
    }
}
