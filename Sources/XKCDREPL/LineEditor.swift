import CEditLine
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The prompt on a terminal, through libedit's readline interface: cursor keys, Ctrl-R,
/// Tab completion and history kept in a file between sessions.
///
/// libedit's own signal handling is off (`rl_catch_signals = 0`); keys are read by
/// ``readKey(_:)``, which turns the `EINTR` that Ctrl-C causes (see ``SignalInterrupts``) into
/// the end of a line that is then thrown away. SIGTERM, SIGHUP and SIGQUIT put the terminal's
/// settings back before they end the process. libedit keeps one editor per process, so only
/// one `LineEditor` may exist at a time.
public final class LineEditor: LineSource {
    private let historyFile: URL
    private let historyLimit: Int
    /// Set when Ctrl-D came while the lines waiting after a line were read.
    private var endsAfterThisLine = false

    /// - Parameters:
    ///   - historyFile: read at once and written after every line; its directory is created.
    ///   - historyLimit: the most lines kept.
    ///   - completer: what Tab offers.
    public init(historyFile: URL, historyLimit: Int = 1000, completer: Completer) {
        self.historyFile = historyFile
        self.historyLimit = historyLimit
        Self.useUTF8Locale()
        activeCompleter.withLock { $0 = completer }
        // Before libedit first turns echo off: SIGTERM or SIGHUP at the prompt must not leave
        // the terminal without it.
        _ = xkcd_restore_terminal_on_termination()
        xkcd_editline_configure(readKey, complete)
        try? FileManager.default.createDirectory(
            at: historyFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        using_history()
        stifle_history(Int32(historyLimit))
        _ = read_history(historyFile.path)
    }

    public func readLine(prompt: String) -> LineInput {
        if endsAfterThisLine {
            return .end
        }
        let first = readOneLine(prompt: prompt)
        guard case .line(let line) = first else { return first }
        // A paste arrives all at once: the lines already waiting after the one ended are read
        // with it, so that the session can take a pasted paragraph as one passage.
        var lines = [line]
        while Self.inputIsWaiting() {
            let next = readOneLine(prompt: "")
            guard case .line(let text) = next else {
                // Ctrl-D typed at once after Enter is waiting too: the line runs, then the
                // session ends, as if it had come at the next prompt.
                endsAfterThisLine = next == .end
                break
            }
            lines.append(text)
        }
        remember(lines.joined(separator: " "))
        return lines.count == 1 ? .line(line) : .pasted(lines)
    }

    /// One line from libedit, not yet remembered.
    private func readOneLine(prompt: String) -> LineInput {
        if Self.endOfFileIsWaiting() { return .end }
        lineCancelled.store(false, ordering: .relaxed)
        readerThread.store(pthread_self(), ordering: .relaxed)
        var mask = sigset_t()
        xkcd_unblock_sigint(&mask)
        let pointer = readline(prompt)
        xkcd_restore_sigmask(&mask)
        readerThread.store(0, ordering: .relaxed)
        guard let pointer else { return .end }
        defer { free(pointer) }
        if lineCancelled.exchange(false, ordering: .relaxed) { return .interrupted }
        return .line(String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self))
    }

    /// Whether Ctrl-D was pressed on an empty line while a command ran, and takes it if so.
    ///
    /// Between prompts the terminal edits lines itself, and the kernel keeps such a Ctrl-D as an
    /// end-of-file mark. Once libedit takes the terminal for the next prompt, the mark would reach
    /// it as a NUL byte, which it ignores, and the session would not end. The mark is the one input
    /// that makes standard input readable with no bytes to read (`FIONREAD` skips it); reading it
    /// returns nothing.
    private static func endOfFileIsWaiting() -> Bool {
        guard inputIsWaiting() else { return false }
        var waitingBytes: Int32 = 0
        guard ioctl(STDIN_FILENO, UInt(FIONREAD), &waitingBytes) == 0, waitingBytes == 0 else { return false }
        var byte: UInt8 = 0
        return read(STDIN_FILENO, &byte, 1) == 0
    }

    /// Whether standard input holds more already, without waiting for it.
    private static func inputIsWaiting() -> Bool {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLIN) != 0
    }

    /// Adds a line to the history unless it is blank or repeats the previous one.
    ///
    /// Kept without trailing blanks: a completion ends the line with a space, and libedit drops
    /// one trailing space when it recalls a line, so the recalled line would never equal the
    /// stored one and each recall would be stored again.
    private func remember(_ line: String) {
        var end = line.endIndex
        while end > line.startIndex, line[line.index(before: end)].isWhitespace { end = line.index(before: end) }
        let entry = String(line[..<end])
        guard !entry.trimmingCharacters(in: .whitespaces).isEmpty else { return }
        let last = xkcd_last_history_line().map { String(cString: $0) }
        guard entry != last else { return }
        _ = add_history(entry)
        _ = write_history(historyFile.path)
        _ = history_truncate_file(historyFile.path, Int32(historyLimit))
    }

    /// libedit decodes keys with the C library, which needs a UTF-8 character type.
    private static func useUTF8Locale() {
        if let name = setlocale(LC_CTYPE, ""), String(cString: name).lowercased().contains("utf") { return }
        _ = setlocale(LC_CTYPE, "C.UTF-8")
    }
}

/// The completer the C callback asks; set by ``LineEditor/init(historyFile:historyLimit:completer:)``.
private let activeCompleter = Mutex<Completer?>(nil)
/// Set when Ctrl-C ended the line being read.
private let lineCancelled = Atomic<Bool>(false)

/// Reads one character for libedit, decoding UTF-8 (libedit takes the value as a wide character).
/// Ctrl-C prints `^C` and ends the line, which ``LineEditor/readLine(prompt:)`` then drops.
private func readKey(_ stream: UnsafeMutablePointer<FILE>?) -> Int32 {
    func byte() -> Int32? {
        var value: UInt8 = 0
        while true {
            if interruptReceived.exchange(false, ordering: .relaxed) {
                lineCancelled.store(true, ordering: .relaxed)
                xkcd_echo("^C")
                return 0x0A
            }
            let count = read(STDIN_FILENO, &value, 1)
            if count == 1 { return Int32(value) }
            if count < 0, errno == EINTR { continue }
            return nil
        }
    }
    guard let lead = byte() else { return EOF }
    if lineCancelled.load(ordering: .relaxed) { return lead }
    let length = lead < 0x80 ? 1 : lead >> 5 == 0x6 ? 2 : lead >> 4 == 0xE ? 3 : lead >> 3 == 0x1E ? 4 : 1
    guard length > 1 else { return lead }
    var scalar = lead & (0x7F >> length)
    for _ in 1..<length {
        guard let next = byte(), next & 0xC0 == 0x80 else { return 0xFFFD }
        scalar = scalar << 6 | (next & 0x3F)
    }
    return scalar
}

/// libedit's completion hook: the candidates for the word before the cursor, as a malloc'd,
/// NULL-terminated array whose first entry is their longest common prefix.
private func complete(
    _ text: UnsafePointer<CChar>?, _ start: Int32, _ end: Int32
) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    let buffer = xkcd_completion_begin()
    guard let completer = activeCompleter.withLock({ $0 }), let buffer else { return nil }
    let line = String(cString: buffer)
    let candidates = completer.completions(for: line, cursor: Int(end))
    guard let first = candidates.first else { return nil }
    var common = first
    for candidate in candidates.dropFirst() {
        while !candidate.hasPrefix(common) { common.removeLast() }
    }
    // `title:` and `tag:` want their value next, not a space, and a directory its file names.
    xkcd_completion_append(candidates.count == 1 && (first.hasSuffix(":") || first.hasSuffix("/")) ? 0 : 0x20)
    // The common prefix, then every candidate, even a lone one: libedit reads the third entry
    // to tell a unique match (which earns the space) and would read past a shorter array.
    let entries = [common] + candidates
    // libedit frees the array and its strings with free().
    let bytes = MemoryLayout<UnsafeMutablePointer<CChar>?>.stride * (entries.count + 1)
    guard let raw = malloc(bytes) else { return nil }
    let array = raw.bindMemory(to: UnsafeMutablePointer<CChar>?.self, capacity: entries.count + 1)
    for (index, entry) in entries.enumerated() { array[index] = strdup(entry) }
    array[entries.count] = nil
    return array
}

// libedit keeps one editor per process, with no lock: the editor stays on the thread that made it.
@available(*, unavailable)
extension LineEditor: Sendable {}
