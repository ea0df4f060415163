import GRDB
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a connection does while another process holds the lock it needs (SQLite's busy
/// handler): it waits up to `timeout`, and past that as long as an index run holds the file, up
/// to ``indexRunLimit`` in all. An index run's longest transactions (the full-text index of
/// every comic rebuilt) can outlast any fixed timeout on a busy machine, and a favourite added
/// meanwhile waits its turn rather than fail; a run that has ended holds nothing, and a wait
/// for a process that is not indexing still ends at `timeout`.
final class BusyWait: Sendable {
    /// The longest wait for an index run, which only a run that hangs reaches.
    static let indexRunLimit: Duration = .seconds(600)

    private struct State {
        var start = ContinuousClock.now
        var lastLook = ContinuousClock.now
        var isIndexing = false
    }

    private let path: String
    private let timeout: Duration
    private let waiting: (@Sendable () -> Void)?
    private let state = Mutex(State())
    /// `waiting` is called once per process, whichever connection waits.
    private static let hasSaidWaiting = Atomic<Bool>(false)

    init(path: String, timeout: Duration, waiting: (@Sendable () -> Void)?) {
        self.path = path
        self.timeout = timeout
        self.waiting = waiting
    }

    /// SQLite's busy handler: true to try the lock again after a short sleep.
    var retry: Database.BusyCallback {
        { [self] tries in
            let now = ContinuousClock.now
            let (waited, isIndexing) = state.withLock { state -> (Duration, Bool) in
                if tries == 0 { state = State(start: now, lastLook: now, isIndexing: false) }
                // The lock file is looked at twice a second, not at every retry.
                if tries == 0 || now - state.lastLook >= .milliseconds(500) {
                    state.lastLook = now
                    let wasIndexing = state.isIndexing
                    state.isIndexing = ComicDatabase.isBeingIndexed(path)
                    // A run that has just ended may still hold the file for its last checkpoint:
                    // the usual timeout starts again from its end, not from the wait's start
                    // (which a long run left far behind).
                    if wasIndexing, !state.isIndexing { state.start = now }
                }
                return (now - state.start, state.isIndexing)
            }
            if isIndexing, waited >= .seconds(1), let waiting, !Self.hasSaidWaiting.exchange(true, ordering: .relaxed) {
                waiting()
            }
            guard waited < timeout || (isIndexing && waited < Self.indexRunLimit) else { return false }
            usleep(10_000)
            return true
        }
    }
}
