import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDFiles
import XKCDKit
import XKCDREPL

#if canImport(Glibc)
    import Glibc
#endif

extension XKCDSearch {
    struct Repl: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "repl",
            abstract: "Search and browse at a prompt, with history and Tab completion.",
            discussion: """
                Every command works with the same words, without 'xkcd-search'. A bare query \
                searches; a number shows that comic; n, p, r, l and e stand for next, prev, random, \
                latest and explain; more (or Enter) shows the next page of results; fav, tag NAME and \
                untag NAME act on the comic shown last; :help and :quit. Output taller than the \
                screen goes through the pager, as on the command line (--no-pager or PAGER=cat: \
                never). Tab completes commands, options and their values, query words, tags and \
                file names. History is kept in $XDG_STATE_HOME/xkcd-search/history. When standard input is not a terminal, it reads \
                one command per line, with no prompt, and exits non-zero if any failed.

                Examples:
                  xkcd-search repl
                  printf 'bobby tables\\n327\\nn\\n' | xkcd-search repl
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup(title: "Images (the session's defaults for show, next, prev, latest, random)") var image:
            ImageOptions

        func run() async throws {
            // A pool: Tab completion reads while a search left behind by Ctrl-C may still run,
            // and its reads see a schema another process changed (GRDB checks it on each one).
            // The commands run in this process: none may start the command line's pager, which
            // would keep this process's standard output; the session pages tall output itself.
            Pager.isAllowed = false
            let index = try global.open(.serving)
            let host = REPLHost(global: global, image: image).makeCommandHost()
            let isInteractive = isatty(STDIN_FILENO) == 1
            let input: any LineSource =
                isInteractive
                ? LineEditor(
                    historyFile: global.paths.stateDirectory.appendingPathComponent("history"),
                    completer: Completer(root: host.root, library: index.library))
                : StandardInputLineSource()
            let interrupts: any InterruptSource = isInteractive ? SignalInterrupts.install() : NoInterrupts()
            let session = Session(
                host: host, index: index, input: input, output: StandardOutputSink(flush: StandardStreams.flush),
                interrupts: interrupts,
                numbersErrors: !isInteractive)
            if isInteractive { print(Session.hint) }
            let summary = await session.run()
            if isInteractive {
                print()  // after the ^D
            } else if summary.failures > 0 {
                throw ExitCode.failure
            }
        }
    }

    /// A bare `xkcd-search` opens the REPL when standard input and output are a terminal, and
    /// prints the help otherwise.
    mutating func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw CleanExit.helpRequest(self) }
        var repl = try Repl.parse([])
        repl.global = global
        try await repl.run()
    }
}
