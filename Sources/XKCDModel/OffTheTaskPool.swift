import Foundation

/// Runs `work` on a thread of its own and awaits it, without holding one of Swift's task threads
/// meanwhile: there is one per core, and work that blocks one (a libcurl transfer, a sentence
/// embedded, a child process waited for, a socket read) would stop every other task of the
/// process from running on it.
///
/// A new thread each call, not a pool's: it never waits for another call's thread to come free.
///
/// ```swift
/// let vectors = await offTheTaskPool { encoder.embedding(forTokenIDs: tokens) }
/// ```
public func offTheTaskPool<T: Sendable, Failure: Error>(
    _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
    let result: Result<T, Failure> = await withCheckedContinuation { continuation in
        Thread {
            continuation.resume(returning: Result { () throws(Failure) -> T in try work() })
        }.start()
    }
    return try result.get()
}
