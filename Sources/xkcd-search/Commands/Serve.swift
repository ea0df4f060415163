import ArgumentParser
import XKCDCommandLine

extension XKCDSearch {
    /// Parses and checks the arguments here, then hands them to this executable in the server's
    /// role (`xkcd-search-serve`), which alone runs Hummingbird and SwiftNIO.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve", abstract: ServeOptions.abstract, discussion: ServeOptions.discussion)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var options: ServeOptions

        /// The server replaces this process, keeping its id, so that a signal sent to it (Ctrl-C,
        /// a service manager's SIGTERM) reaches the server.
        func run() throws {
            let line = GlobalOptions.movedAfterTheCommand(Array(CommandLine.arguments.dropFirst()))
            try SiblingExecutable.locate(.server).replaceCurrentProcess(arguments: Array(line.dropFirst()))
        }
    }
}
