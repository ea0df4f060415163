import CEditLine
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Set by the SIGINT handler; an atomic store is async-signal-safe.
let interruptReceived = Atomic<Bool>(false)
/// The thread blocked in the line editor's `read`, or 0. A process-directed signal may land on
/// any thread, so the handler forwards it there to make that `read` return `EINTR`.
let readerThread = Atomic<UInt>(0)

/// Ctrl-C as a flag instead of the end of the process: installed on a terminal only.
///
/// The handler is installed without `SA_RESTART`, so a `read` waiting for a key returns `EINTR`
/// and the line editor can drop the line (see ``LineEditor``).
public struct SignalInterrupts: InterruptSource {
    /// Installs the SIGINT handler for the rest of the process.
    public static func install() -> SignalInterrupts {
        // Initialise the globals outside the handler.
        _ = interruptReceived.load(ordering: .relaxed)
        _ = readerThread.load(ordering: .relaxed)
        _ = xkcd_catch_sigint { _ in
            interruptReceived.store(true, ordering: .relaxed)
            let reader = readerThread.load(ordering: .relaxed)
            if reader != 0, reader != pthread_self() { _ = pthread_kill(reader, SIGINT) }
        }
        return SignalInterrupts()
    }

    public func takeInterrupt() -> Bool {
        interruptReceived.exchange(false, ordering: .relaxed)
    }
}
