import ArgumentParser
import FoundationEssentials
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Link: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "link",
            abstract: "Print a line to share a comic: 'xkcd #327: Exploits of a Mom https://xkcd.com/327/'.",
            discussion: "Examples:\n  xkcd-search link 327\n  xkcd-search link latest\n  xkcd-search link 327 --json")

        @OptionGroup var global: GlobalOptions

        @OptionGroup var comic: ComicArgument

        @Flag(help: "Print JSON: num, title, url, line.")
        var json = false

        func run() throws {
            let reference = try comic.reference()
            let shared = try global.open().library.sharedComic(reference)
            let line = Library.shareLine(for: shared)
            guard json else { return print(sanitized(line)) }
            try JSONOutput.print(LinkDocument(num: shared.id, title: shared.title, url: shared.url, line: line))
        }
    }

    struct Open: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open",
            abstract: "Open a comic (or its explain xkcd page) in the browser.",
            discussion: """
                Runs $BROWSER (commands separated by ':', tried in turn until one succeeds; '%s' \
                stands for the URL), else xdg-open, in this terminal (w3m and lynx get the \
                keyboard). When none opens the page, prints the URL, says why and exits 1.

                Examples:
                  xkcd-search open 327
                  xkcd-search open --explain        # the comic shown last
                  BROWSER=w3m xkcd-search open 1190
                """)

        @OptionGroup var global: GlobalOptions

        @OptionGroup var comic: ComicArgument

        @Flag(help: "Open the explain xkcd page instead.")
        var explain = false

        func run() throws {
            let reference = try comic.reference()
            let url = try global.open().library.url(reference, explain: explain)
            global.log("opening \(url) with $BROWSER's entries in turn, else xdg-open")
            switch URLOpener().open(url) {
            case .opened: break
            case .unavailable(let reason):
                print(url)
                Terminal.printError("not opened: \(reason)")
                throw ExitCode.failure
            case .failed(let reason):
                print(url)
                Terminal.printError("not opened: \(reason)")
                throw ExitCode.failure
            }
        }
    }
}
