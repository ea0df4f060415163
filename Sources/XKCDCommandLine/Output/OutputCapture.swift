import CPseudoTerminal
import Dispatch
import FoundationEssentials
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Collects what this process writes to standard output for a while: how the REPL sees how tall
/// a command's output is before it decides to page it.
///
/// Standard output becomes a pseudo-terminal the size of the real one, not a pipe, so that the
/// commands still see a terminal: they wrap to its width, use colour and decide to draw images
/// exactly as they do when they write to the screen. A thread reads the other end as it fills,
/// so a long output cannot block the command that writes it.
///
/// A program that must draw on the real terminal (the comic's image) runs in
/// ``onTerminal(_:)``: what was collected before it is written out first, so the order on the
/// screen stays the order of the writes, and collecting starts again after it.
///
/// ```swift
/// guard let capture = OutputCapture.start() else { return run() }
/// run()
/// Pager.show(capture.finish(), through: "less -FRX")
/// ```
public final class OutputCapture: Sendable {
    /// The capture in progress, which ``onTerminal(_:)`` suspends; at most one at a time.
    private static let current = Mutex<OutputCapture?>(nil)

    /// A copy of the real standard output, put back when collecting stops.
    private let terminal: Int32
    private let segment: Mutex<Segment?>

    private init(terminal: Int32, segment: Segment) {
        self.terminal = terminal
        self.segment = Mutex(segment)
    }

    /// Starts collecting standard output; nil when it cannot (another capture runs, or no
    /// pseudo-terminal could be opened), and then standard output stays as it was.
    public static func start() -> OutputCapture? {
        current.withLock { current in
            guard current == nil else { return nil }
            // Close-on-exec: a child started meanwhile gets the capture, not a way around it.
            let terminal = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)
            guard terminal >= 0 else { return nil }
            guard let segment = Segment.start(sizedLike: terminal) else {
                close(terminal)
                return nil
            }
            let capture = OutputCapture(terminal: terminal, segment: segment)
            current = capture
            return capture
        }
    }

    /// Stops collecting, puts the real standard output back and returns what was written since
    /// ``start()`` (or since the last ``onTerminal(_:)``).
    public func finish() -> [UInt8] {
        Self.current.withLock { current in
            let bytes = segment.withLock { segment in
                defer { segment = nil }
                return segment?.stop(restoring: terminal) ?? []
            }
            close(terminal)
            current = nil
            return bytes
        }
    }

    /// Whether standard output is being collected (the REPL pages it afterwards).
    public static var isCollecting: Bool { current.withLock { $0 != nil } }

    /// Runs `body` with the real terminal as standard output when a capture is in progress (a
    /// child process that draws on it inherits it), after writing out what was collected so far;
    /// then collects again. Without a capture it just runs `body`.
    public static func onTerminal<T>(_ body: () throws -> T) rethrows -> T {
        guard let capture = current.withLock({ $0 }) else { return try body() }
        capture.segment.withLock { segment in
            let bytes = segment?.stop(restoring: capture.terminal) ?? []
            segment = nil
            Pager.writeAll(bytes, to: STDOUT_FILENO)
        }
        defer {
            capture.segment.withLock { segment in segment = Segment.start(sizedLike: capture.terminal) }
        }
        return try body()
    }
}

/// One stretch of collecting: standard output on a pseudo-terminal whose other end a
/// Dispatch thread drains.
private struct Segment: Sendable {
    /// What the draining thread has read; complete once `done` is signalled.
    final class Received: Sendable {
        let bytes = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
    }

    let received: Received

    /// Opens a pseudo-terminal with the size of `terminal`, makes its terminal end standard
    /// output and starts draining the other end; nil when any step fails (nothing changed then).
    static func start(sizedLike terminal: Int32) -> Segment? {
        var screen: Int32 = -1
        let controller = xkcd_open_pseudo_terminal(terminal, &screen)
        guard controller >= 0 else { return nil }
        StandardStreams.flush()  // what was printed before goes to the terminal
        guard dup2(screen, STDOUT_FILENO) >= 0 else {
            close(screen)
            close(controller)
            return nil
        }
        close(screen)
        let received = Received()
        DispatchQueue.global().async {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(controller, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                // Once no one holds the terminal end, Linux gives what is left, then EIO.
                guard count > 0 else { break }
                received.bytes.withLock { $0 += buffer[..<count] }
            }
            close(controller)
            received.done.signal()
        }
        return Segment(received: received)
    }

    /// Puts `terminal` back as standard output and returns everything written meanwhile.
    ///
    /// A process still holding the terminal end (a child left running) would keep the end of
    /// the output from coming: after two seconds what came so far is taken.
    func stop(restoring terminal: Int32) -> [UInt8] {
        StandardStreams.flush()
        dup2(terminal, STDOUT_FILENO)
        _ = received.done.wait(timeout: .now() + .seconds(2))
        return received.bytes.withLock { $0 }
    }
}
