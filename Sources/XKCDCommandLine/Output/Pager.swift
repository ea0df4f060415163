import Foundation
import Synchronization
import XKCDFiles
import XKCDKit

#if canImport(Glibc)
    import Glibc
#endif

/// Sends the rest of a command's standard output through a pager, as git and psql do: on a
/// terminal only, with `$XKCD_SEARCH_PAGER`, else `$PAGER`, else `less -FRX` (which prints
/// output shorter than the screen as it is, keeps colour and leaves the text on the screen).
///
/// The pager reads a pipe that becomes this process's standard output; when the process exits,
/// the pipe is closed and the pager waited for, so the shell's prompt comes after it.
///
/// ```swift
/// Pager.start(unless: options.noPager)
/// print(longText)   // through the pager on a terminal
/// ```
public enum Pager: Sendable {
    /// The pager's process, waited for at exit; 0 when none runs.
    private static let pager = Atomic<pid_t>(0)

    /// False in the REPL, which runs the commands in its own process: a pager would take its
    /// standard output for the rest of the session. The REPL pages each command's output
    /// itself instead (``OutputCapture``, ``show(_:through:)``).
    public static var isAllowed: Bool {
        get { allowed.load(ordering: .relaxed) }
        set { allowed.store(newValue, ordering: .relaxed) }
    }
    private static let allowed = Atomic(true)

    /// The pager command, or nil for none: not a terminal, turned off, or `cat`.
    public static func command(
        disabled: Bool, isTerminal: Bool = Terminal.isStandardOutputATerminal,
        environment: (String) -> String? = environmentVariable
    ) -> String? {
        guard !disabled, isTerminal else { return nil }
        // A dumb terminal (Emacs's shell, an editor's output pane) cannot run less: only a
        // pager asked for by name is started there.
        let fallback = environment("TERM") == "dumb" ? "cat" : "less -FRX"
        let command = (environment("XKCD_SEARCH_PAGER") ?? environment("PAGER") ?? fallback)
            .trimmingCharacters(in: .whitespaces)
        return command.isEmpty || command == "cat" ? nil : command
    }

    /// Starts the pager, once a process, unless `disabled` or it would not page (see
    /// ``command(disabled:isTerminal:environment:)``). Output printed before stays as it was.
    public static func start(unless disabled: Bool) {
        guard isAllowed, pager.load(ordering: .relaxed) == 0, let command = command(disabled: disabled) else { return }
        if let missing = missingProgram(of: command) {
            // The shell would say "not found" and the output would go nowhere: print it here.
            Terminal.printError("the pager \(quoted(missing)) was not found; printing without it")
            return
        }
        StandardStreams.flush()
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        // Close-on-exec: the pager must not hold the pipe's write end, or it never sees its end.
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        // Through the shell, as git runs it: `$PAGER` may hold options and quotes.
        let spawned = Result { () throws(POSIXError) in
            try ChildProcess.spawn("/bin/sh", arguments: ["-c", command], standardInput: ends[0])
        }
        close(ends[0])
        guard case .success(let pid) = spawned else {
            close(ends[1])
            return
        }
        // Kept (not inherited by children) so that colour and width follow the terminal.
        Terminal.pagedTerminal = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)
        dup2(ends[1], STDOUT_FILENO)
        close(ends[1])
        pager.store(pid, ordering: .relaxed)
        // Ctrl-C is the pager's while it shows the output (less stops reading); this process
        // ends when it has written everything, and then waits for the pager.
        signal(SIGINT, SIG_IGN)
        atexit {
            StandardStreams.flush()
            close(STDOUT_FILENO)
            var status: Int32 = 0
            while waitpid(Pager.pager.load(ordering: .relaxed), &status, 0) == -1 && errno == EINTR {}
        }
    }
}

extension Pager {
    /// The program `command` starts when it is not on `PATH` (or not executable where named),
    /// else nil; nil too for a command with shell syntax, which the shell alone can read.
    static func missingProgram(of command: String, path: String? = environmentVariable("PATH")) -> String? {
        guard let program = command.split(separator: " ").first.map(String.init),
            !program.contains(where: { "'\"$`\\;|&<>(){}=*?~".contains($0) })
        else { return nil }
        if program.contains("/") { return access(program, X_OK) == 0 ? nil : program }
        let directories = (path ?? "/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
        let found = directories.contains { directory in
            access((directory.isEmpty ? "." : String(directory)) + "/" + program, X_OK) == 0
        }
        return found ? nil : program
    }
}

/// The REPL's paging: a text at a time, the pager waited for before the prompt comes back.
extension Pager {
    /// Writes `text` to standard output, or hands it to `command` when it takes at least as many
    /// rows as the terminal has: with the prompt below it, its first line would scroll away.
    /// Shorter text, or text where the terminal's size is unknown, is written as it is.
    public static func show(_ text: [UInt8], through command: String) {
        StandardStreams.flush()
        if let size = Terminal.windowSize,
            rows(of: String(decoding: text, as: UTF8.self), width: Int(size.ws_col)) >= Int(size.ws_row),
            run(command, on: text)
        {
            return
        }
        writeAll(text, to: STDOUT_FILENO)
    }

    /// Runs `command` through `/bin/sh` with `text` as its standard input and waits for it to
    /// quit. Ctrl-C meanwhile is the pager's (less stops reading and stays); this process
    /// ignores it.
    ///
    /// The text goes through an unlinked temporary file, not a pipe: nothing has to write while
    /// the pager reads, and a pager that quits early cannot leave a writer blocked or killed by
    /// SIGPIPE.
    ///
    /// - Returns: false when the pager could not be started (the caller then prints the text).
    public static func run(_ command: String, on text: [UInt8]) -> Bool {
        var template = Array((FileManager.default.temporaryDirectory.path + "/xkcd-search-page-XXXXXX").utf8CString)
        let file = mkstemp(&template)
        guard file >= 0 else { return false }
        defer { close(file) }
        unlink(template)
        guard writeAll(text, to: file), lseek(file, 0, SEEK_SET) == 0 else { return false }
        // Through the shell, as git runs it: `$PAGER` may hold options and quotes.
        let status = try? ChildProcess.run(
            "/bin/sh", arguments: ["-c", command], handsInterruptsToChild: true, standardInput: file)
        // 127: the shell found no such command; its message is on standard error.
        return status.map { $0 != 127 } ?? false
    }

    /// The rows `text` takes on a terminal `width` columns wide: each line, without its escape
    /// sequences, wraps every `width` characters; an empty line takes one row.
    public static func rows(of text: String, width: Int) -> Int {
        guard width > 0 else { return 0 }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if text.hasSuffix("\n") { lines.removeLast() }
        return lines.reduce(0) { total, line in
            total + max(1, (visibleWidth(of: line) + width - 1) / width)
        }
    }

    /// Characters that take room on the screen: escape sequences (`ESC [ … letter`, as colour
    /// is written) and carriage returns left out.
    static func visibleWidth(of line: Substring) -> Int {
        var count = 0
        var inEscape = false
        var afterEscape = false
        for scalar in line.unicodeScalars {
            if afterEscape {
                afterEscape = false
                inEscape = scalar == "["
            } else if inEscape {
                if (0x40...0x7E).contains(scalar.value) { inEscape = false }
            } else if scalar == "\u{1B}" {
                afterEscape = true
            } else if scalar != "\r", scalar.properties.generalCategory != .nonspacingMark {
                count += 1
            }
        }
        return count
    }

    /// Writes every byte, going on after a partial write or an interrupted one.
    @discardableResult
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}
