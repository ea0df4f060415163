import Foundation
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
public enum Pager {
    /// The pager's process, waited for at exit; 0 when none runs.
    nonisolated(unsafe) private static var pager: pid_t = 0

    /// False in the REPL, which runs the commands in its own process: a pager would take its
    /// standard output for the rest of the session.
    nonisolated(unsafe) public static var isAllowed = true

    /// The pager command, or nil for none: not a terminal, turned off, or `cat`.
    public static func command(
        disabled: Bool, isTerminal: Bool = Terminal.isStandardOutputATerminal,
        environment: (String) -> String? = environmentVariable
    ) -> String? {
        guard !disabled, isTerminal else { return nil }
        let command = (environment("XKCD_SEARCH_PAGER") ?? environment("PAGER") ?? "less -FRX")
            .trimmingCharacters(in: .whitespaces)
        return command.isEmpty || command == "cat" ? nil : command
    }

    /// Starts the pager, once a process, unless `disabled` or it would not page (see
    /// ``command(disabled:isTerminal:environment:)``). Output printed before stays as it was.
    public static func start(unless disabled: Bool) {
        guard isAllowed, pager == 0, let command = command(disabled: disabled) else { return }
        fflush(nil)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, ends[1])
        // Through the shell, as git runs it: `$PAGER` may hold options and quotes.
        let words: [String] = ["/bin/sh", "-c", command]
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
        close(ends[0])
        guard spawned == 0 else {
            close(ends[1])
            return
        }
        dup2(ends[1], STDOUT_FILENO)
        close(ends[1])
        pager = pid
        // Ctrl-C is the pager's while it shows the output (less stops reading); this process
        // ends when it has written everything, and then waits for the pager.
        signal(SIGINT, SIG_IGN)
        atexit {
            fflush(nil)
            close(STDOUT_FILENO)
            var status: Int32 = 0
            while waitpid(Pager.pager, &status, 0) == -1 && errno == EINTR {}
        }
    }
}
