import Synchronization

/// A clock whose sleeps end at once and are written down: for tests of retry and timeout logic,
/// which then check the waits that were asked for instead of timing them.
///
/// Its time moves only when something sleeps on it, by exactly the time asked for.
///
/// ```swift
/// let clock = RecordingClock()
/// // … hand `clock` to the code under test …
/// #expect(clock.sleeps == [.seconds(1)])
/// ```
public final class RecordingClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex<(now: Instant, sleeps: [Duration])>((Instant(offset: .zero), []))

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// Every sleep asked for, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(max(.zero, state.now.duration(to: deadline)))
            if state.now < deadline { state.now = deadline }
        }
        // Lets other tasks run, as a real sleep would.
        await Task.yield()
    }
}
