import Foundation

/// Waiting for something to happen, as tests on a busy machine must: for an event, never for a
/// guessed time.
///
/// A test that waits for a file to be written or a request to reach the fixture server polls
/// for that evidence; the only limit is a hang guard of minutes, which no machine, however
/// loaded, needs to reach, and which names what never happened.
///
/// ```swift
/// try await waitUntil("the indexer stored a comic") { storedComics(db).count > 0 }
/// ```
public enum Waiting: Sendable {
    /// How long a wait may last before the test takes it as a hang. Not a measure of speed: a
    /// step that takes a second on an idle machine may take a minute beside other work.
    public static let hangGuard: Duration = .seconds(600)

    /// What never happened within ``hangGuard``.
    public struct NeverHappened: Error, CustomStringConvertible {
        public var what: String
        public var description: String { "gave up waiting (hang guard of \(Waiting.hangGuard)): \(what)" }
    }
}

/// Polls `condition` until it holds, and throws ``Waiting/NeverHappened`` naming `what` if it
/// still does not after ``Waiting/hangGuard``. `stopIf` ends the wait early without an error
/// (for example when the process that should have done it has ended): the caller then checks
/// the outcome itself.
///
/// - Returns: whether `condition` held (false only when `stopIf` ended the wait).
@discardableResult
public func waitUntil(
    _ what: String, pollingEvery interval: Duration = .milliseconds(20),
    stopIf: () async throws -> Bool = { false }, _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + Waiting.hangGuard
    while true {
        if try await condition() { return true }
        if try await stopIf() { return try await condition() }
        guard ContinuousClock.now < deadline else { throw Waiting.NeverHappened(what: what) }
        try await Task.sleep(for: interval)
    }
}
