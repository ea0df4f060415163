import Foundation
import Synchronization
import XKCDCommandLine
import XKCDIndexer

/// A one-line progress bar on standard error, redrawn at most ten times a second.
final class ProgressBar: Sendable {
    private let label: String
    private let start = Date()
    private let lastDraw = Mutex(Date.distantPast)

    init(label: String) { self.label = label }

    func update(completed: Int, total: Int, failed: Int) {
        let now = Date()
        let isDue = lastDraw.withLock { last in
            guard now.timeIntervalSince(last) >= 0.1 || completed == total else { return false }
            last = now
            return true
        }
        guard isDue else { return }
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(completed) / elapsed
        let fraction = total > 0 ? Double(completed) / Double(total) : 1
        let cells = 30
        let filled = Int(fraction * Double(cells))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled)
        let failures = failed > 0 ? ", \(failed) failed" : ""
        let line = String(format: "\r%@ %@ %d/%d (%.0f/s%@)\u{1B}[K", label, bar, completed, total, rate, failures)
        StandardStreams.writeError(line)
    }

    func finish() {
        StandardStreams.writeError("\r\u{1B}[K")
    }
}

/// A progress bar for each stage of an index run, drawn from the stage's first progress on.
final class StageBars: Sendable {
    private let bars = Mutex<[IndexRun.Stage: ProgressBar]>([:])

    func update(_ stage: IndexRun.Stage, _ progress: IndexProgress) {
        let bar = bars.withLock { bars in
            if let bar = bars[stage] { return bar }
            let bar = ProgressBar(label: stage.rawValue)
            bars[stage] = bar
            return bar
        }
        bar.update(completed: progress.completed, total: progress.total, failed: progress.failed)
    }

    func finish(_ stage: IndexRun.Stage) {
        bars.withLock { $0[stage] }?.finish()
    }

    /// Clears the line of whichever bar was drawn: after a run that stopped midway too.
    func clear() {
        bars.withLock { $0.values.first }?.finish()
    }
}
