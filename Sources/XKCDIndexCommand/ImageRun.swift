import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDFiles
import XKCDIndexer
import XKCDKit

extension XKCDSearchIndex {
    /// `index --images`: every image the cache lacks, with the progress bar and one line of
    /// summary. Ctrl-C stops it (exit 130) and a host that fails every request stops it early
    /// (exit 3), each with one line; what was kept stays.
    func fetchImages(_ run: IndexRun, interrupts: Interrupts) async throws -> ImageReport {
        let cache = ImageCache(directory: global.paths.imagesDirectory)
        let bar = Terminal.isStandardErrorATerminal && !options.json ? ProgressBar(label: "images") : nil
        let baseURL = URL(string: options.imageURL)!
        let report = try await interrupts.run {
            try await run.fetchImages(imagesDirectory: cache.directory, baseURL: baseURL) { progress in
                bar?.update(completed: progress.completed, total: progress.total, failed: progress.failed)
            }
        }
        bar?.finish()
        let usage = cache.usage()
        let kept = "\(usage.images) kept (\(Terminal.size(usage.bytes))) in \(cache.directory.path)"
        if report.isInterrupted {
            Terminal.printError(
                "interrupted: \(report.fetched) images fetched, \(kept); 'xkcd-search index --images' fetches the rest")
            throw ExitCode(130)
        }
        if let reason = report.stoppedBecause {
            Terminal.printError(
                "images: stopped after \(sanitized(reason)); \(report.fetched) fetched, \(kept); 'xkcd-search index --images' tries again"
            )
            throw ExitCode(3)
        }
        var line =
            "images: \(report.fetched) fetched, \(report.alreadyKept) already kept, \(report.unavailable.count) without one; \(kept)"
        if !report.failures.isEmpty {
            line +=
                "; \(report.failures.count) failed, retried by the next run: "
                + report.failures.map { "#\($0.id): \(sanitized($0.reason))" }.joined(separator: "; ")
        }
        if options.json { Terminal.printError(line) } else { print(line) }
        return report
    }
}
