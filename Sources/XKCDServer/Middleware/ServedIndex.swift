import FoundationEssentials
import Hummingbird
import Logging
import Synchronization
import XKCDKit

// The index handle: opened, closed and replaced here.

#if canImport(Glibc)
    import Glibc
#endif

/// The index the server answers from, and the one published at its path after it (issue 39).
///
/// A replica is updated by writing a new index elsewhere and renaming it over the served path
/// (docs/server.md). Before each request the server looks at the path (one `stat`); when another
/// file is there, it lets the requests under way finish on the old one, closes it, opens the new
/// one and goes on: no restart, no failed request (those that arrive meanwhile wait a moment).
///
/// The old file is closed before the new one is opened because SQLite names a database's
/// write-ahead log and shared memory after its path: the new file would otherwise read the old
/// one's `-wal` and `-shm`, and closing the old one later would delete them from under the new.
/// A file published that is no SQLite database is refused and the old one kept; one that cannot
/// be opened as an index leaves the server answering 503 `index-unavailable` (and `/healthz`
/// too, so that a load balancer sends no one to it) until a good one is published.
final class ServedIndex: Sendable {
    /// What a request answers from: one index and the engine and library over it.
    struct Generation: Sendable {
        let index: OpenIndex
        /// The file it was opened from; nil when not watched (an index with no path of its own),
        /// or when it was closed after a published file was refused.
        let file: FileIdentity?
    }

    /// A file by device and inode: what a rename over the path changes.
    struct FileIdentity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }
    }

    private struct State {
        var current: Generation
        /// False after a published file could not be opened: the old one is closed already.
        var isAvailable = true
        var leases = 0
        var isReplacing = false
        /// The replacement, waiting for the requests under way.
        var waitingForLeases: CheckedContinuation<Void, Never>?
        /// Requests that arrived during a replacement.
        var waitingForReplacement: [CheckedContinuation<Void, Never>] = []
        /// A published file that was refused: not tried again until another is published.
        var refused: FileIdentity?
    }

    /// The generation a request leased (``lease(_:)``), for the work it runs in other tasks too.
    @TaskLocal static var leased: Generation?

    private let state: Mutex<State>
    /// Where new files are published; nil: the index is never replaced.
    private let path: String?
    private let open: @Sendable () throws -> OpenIndex
    private let logger: Logger

    /// - Parameters:
    ///   - index: the index served first.
    ///   - path: where new files are published; nil when the index is never replaced.
    ///   - open: opens the file at `path` again.
    init(index: OpenIndex, path: String?, open: @escaping @Sendable () throws -> OpenIndex, logger: Logger) {
        self.path = path
        self.open = open
        self.logger = logger
        state = Mutex(State(current: Generation(index: index, file: path.flatMap(FileIdentity.init(path:)))))
    }

    /// The generation of the request under way, or the current one outside a request.
    var generation: Generation { Self.leased ?? state.withLock { $0.current } }

    /// Runs `body` with the index current when it starts, which is not closed before it ends.
    func lease<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let generation = try await acquire()
        defer { release() }
        return try await Self.$leased.withValue(generation) { try await body() }
    }

    private enum Step {
        case serve(Generation)
        case wait
        case replace(FileIdentity)
        case unavailable
    }

    private func acquire() async throws -> Generation {
        while true {
            let published = path.flatMap(FileIdentity.init(path:))
            let step = state.withLock { state -> Step in
                if state.isReplacing { return .wait }
                if let published, published != state.current.file, published != state.refused {
                    state.isReplacing = true
                    return .replace(published)
                }
                guard state.isAvailable else { return .unavailable }
                state.leases += 1
                return .serve(state.current)
            }
            switch step {
            case .serve(let generation):
                return generation
            case .unavailable:
                throw APIError(
                    .serviceUnavailable, code: "index-unavailable",
                    message: "the index published here could not be opened; try again later",
                    headers: [.retryAfter: "60"])
            case .wait:
                await withCheckedContinuation { continuation in
                    state.withLock { state in
                        if state.isReplacing {
                            state.waitingForReplacement.append(continuation)
                        } else {
                            continuation.resume()
                        }
                    }
                }
            case .replace(let file):
                await replace(with: file)
            }
        }
    }

    private func release() {
        let drained = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.leases -= 1
            guard state.leases == 0 else { return nil }
            defer { state.waitingForLeases = nil }
            return state.waitingForLeases
        }
        drained?.resume()
    }

    private func replace(with file: FileIdentity) async {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if state.leases == 0 {
                    continuation.resume()
                } else {
                    state.waitingForLeases = continuation
                }
            }
        }
        // No request uses the old index now, and none starts until this is done.
        let (old, isOpen) = state.withLock { ($0.current, $0.isAvailable) }
        if let path, Services.startsAsSQLite(at: path) {
            // Closed already when the file before this one could not be opened.
            if isOpen { old.index.close() }
            do {
                let generation = Generation(index: try open(), file: file)
                state.withLock {
                    $0.current = generation
                    $0.isAvailable = true
                    $0.refused = nil
                }
                logger.notice("serving the index published at \(path)")
            } catch {
                logger.error("the index published at \(path) could not be opened: \(String(describing: error))")
                state.withLock {
                    $0.isAvailable = false
                    $0.refused = file
                    // The file served before is closed: were it renamed back over the path (a
                    // rollback), it is to be opened again like any other.
                    $0.current = Generation(index: old.index, file: nil)
                }
            }
        } else {
            logger.error("the file published at \(path ?? "") is no SQLite database: still serving the one before it")
            state.withLock { $0.refused = file }
        }
        let waiting = state.withLock { state in
            state.isReplacing = false
            defer { state.waitingForReplacement = [] }
            return state.waitingForReplacement
        }
        for request in waiting { request.resume() }
    }
}
