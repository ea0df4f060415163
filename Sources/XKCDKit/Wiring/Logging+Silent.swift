import Foundation
import Logging

extension Logger {
    /// A logger that drops everything: what the library logs when no one asked (`-v`).
    public static var silent: Logger { Logger(label: "xkcd-search") { _ in SwiftLogNoOpLogHandler() } }
}

/// The time since `start` for a log line, as "1.25 ms".
///
/// - Parameter start: when the step being timed began.
/// - Returns: the milliseconds elapsed, to two decimal places, with their unit.
public func milliseconds(since start: ContinuousClock.Instant) -> String {
    let elapsed = start.duration(to: .now)
    return String(format: "%.2f ms", elapsed.seconds * 1000)
}
