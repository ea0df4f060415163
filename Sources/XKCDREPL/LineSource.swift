import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What one read from a ``LineSource`` produced.
public enum LineInput: Sendable, Equatable {
    case line(String)
    /// Several lines that arrived at once, as a paste brings them (in order, without their ends).
    case pasted([String])
    /// Ctrl-C at the prompt: the line was thrown away.
    case interrupted
    /// Ctrl-D on an empty line, or the end of standard input.
    case end
}

/// Where the session's lines come from: the line editor on a terminal, standard input otherwise,
/// or a script in tests.
public protocol LineSource: AnyObject {
    func readLine(prompt: String) -> LineInput
}

/// Where the session writes.
public protocol OutputSink: AnyObject {
    func write(_ text: String)
    func writeError(_ text: String)
    /// Pushes out whatever commands printed, before the next prompt.
    func flush()
}

/// Standard input read a line at a time, with no prompt and no escape sequences.
public final class StandardInputLineSource: LineSource, Sendable {
    /// Whether the first line is still to come: a byte-order mark can only lead it.
    private let isFirstLine = Atomic(true)

    public init() {}

    public func readLine(prompt: String) -> LineInput {
        guard var line = Swift.readLine(strippingNewline: true) else { return .end }
        // A byte-order mark (Windows editors write one) is no part of the first command.
        if isFirstLine.exchange(false, ordering: .relaxed), line.hasPrefix("\u{FEFF}") { line.removeFirst() }
        return .line(line.hasSuffix("\r") ? String(line.dropLast()) : line)
    }
}

/// Standard output and standard error, through the same C streams that `print` uses, so that
/// what the REPL and the commands write stays in order.
public final class StandardOutputSink: OutputSink, Sendable {
    private let flushStreams: @Sendable () -> Void

    /// - Parameter flush: pushes out what `print` holds; the command line's also keeps a failed
    ///   write, to report it when the process exits.
    public init(flush: @escaping @Sendable () -> Void) {
        flushStreams = flush
    }

    public func write(_ text: String) {
        print(text, terminator: "")
        flushStreams()
    }

    public func writeError(_ text: String) {
        flushStreams()
        // Not FileHandle.write, which stops the process when standard error cannot be written.
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    public func flush() {
        flushStreams()
    }
}

/// Tells the session that the user pressed Ctrl-C while a command ran.
public protocol InterruptSource: Sendable {
    /// True once per Ctrl-C.
    func takeInterrupt() -> Bool
    /// Whether Ctrl-C can come at all. Where it cannot (standard input is no terminal), a
    /// command runs on the session's own task, and nothing watches it.
    var canInterrupt: Bool { get }
}

extension InterruptSource {
    public var canInterrupt: Bool { true }
}

/// A script with no Ctrl-C.
public struct NoInterrupts: InterruptSource {
    public init() {}
    public func takeInterrupt() -> Bool { false }
    public var canInterrupt: Bool { false }
}
