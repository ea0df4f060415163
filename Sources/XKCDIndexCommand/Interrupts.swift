import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C during an index run: it cancels the step running (fetching, embedding, images), which
/// keeps what it stored; a second Ctrl-C ends the process at once.
///
/// ```swift
/// let interrupts = Interrupts()
/// let report = try await interrupts.run { try await indexer.run() }   // cancelled by Ctrl-C
/// if interrupts.happened { … exit 130 }
/// ```
final class Interrupts: Sendable {
    private let state = Mutex<(happened: Bool, cancel: (@Sendable () -> Void)?)>((false, nil))

    init() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        // The handler holds the source, and this object, until the first Ctrl-C cancels it.
        source.setEventHandler { [self] in
            let cancel = state.withLock { state in
                state.happened = true
                return state.cancel
            }
            cancel?()
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        source.resume()
    }

    /// Whether Ctrl-C was pressed.
    var happened: Bool { state.withLock { $0.happened } }

    /// Runs `body` as a task that Ctrl-C cancels (at once if it came before).
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let cameBefore = state.withLock { state in
            state.cancel = { task.cancel() }
            return state.happened
        }
        if cameBefore { task.cancel() }
        defer { state.withLock { $0.cancel = nil } }
        return try await task.value
    }
}
