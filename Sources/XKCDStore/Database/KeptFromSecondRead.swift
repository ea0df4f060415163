import Synchronization

/// Something read from the index and kept in memory from its second read on, while the key it
/// was read at (a version that triggers raise with every change) stays the same: what
/// ``VectorCache``, ``LinkCountCache`` and ``LinkedPassageCache`` share.
///
/// A one-shot search reads once and keeps nothing, so it pays nothing for a cache it would not
/// use; a process that reads the same thing again (the REPL, the server) keeps it. A value of
/// another key is let go at once, not kept beside the new one.
final class KeptFromSecondRead<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var kept: (key: Key, value: Value)?
        /// The key of the last read, and how many reads in a row were at it.
        var lastRead: (key: Key, count: Int)?
    }

    private let state = Mutex(State())

    /// What is kept now, if anything.
    var kept: Value? { state.withLock { $0.kept?.value } }

    /// The value kept at `key`, loaded and kept when this is the second read in a row at it, or
    /// nil: the caller then reads it its own way.
    func value(at key: Key, load: () throws -> Value) rethrows -> Value? {
        try state.withLock { state in
            if let kept = state.kept {
                if kept.key == key { return kept.value }
                state.kept = nil
            }
            let reads = state.lastRead?.key == key ? state.lastRead!.count + 1 : 1
            state.lastRead = (key, reads)
            guard reads >= 2 else { return nil }
            let value = try load()
            state.kept = (key, value)
            return value
        }
    }
}
