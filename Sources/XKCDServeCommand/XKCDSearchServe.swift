import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import XKCDCommandLine
import XKCDFiles
import XKCDKit
import XKCDServer

/// `xkcd-search serve`: the server's role of the one executable (argv[0] `xkcd-search-serve`),
/// the only one that runs Hummingbird and SwiftNIO. `xkcd-search` checks the arguments, then
/// starts itself in this role with them.
struct XKCDSearchServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xkcd-search serve", abstract: ServeOptions.abstract, discussion: ServeOptions.discussion,
        version: "0.1.0")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: ServeOptions

    func run() async throws {
        do {
            try await serve()
        } catch let error where !(error is ExitCode) {
            Terminal.exit(Self.self, withError: error)
        }
    }

    private func serve() async throws {
        // The access log is the server's output: at info always, the query strings with -v.
        var logger = GlobalOptions.makeLogger(verbose: true)
        logger.logLevel = global.verbose ? .debug : .info
        let configuration = APIServer.Configuration(
            host: options.host, port: options.port, isReadOnly: options.readOnly, allowedHosts: options.allowedHost,
            requestDeadline: .seconds(options.deadline), identifyDeadline: .seconds(options.identifyDeadline),
            imageBaseURL: URL(string: options.imageURL)!,
            imageTimeout: .milliseconds(Int((ImageOptions.timeoutFromEnvironment ?? 5) * 1000)))
        if !configuration.isLoopback, !options.readOnly {
            Terminal.printError(
                "warning: serving on \(options.host) without --read-only: anyone who reaches it can change the favourites"
            )
        }
        // A pool (readers side by side, never waiting for a writer); a new index published at the
        // path (renamed over it) is served from the next request on.
        let services = global.makeServices()
        let server: APIServer
        do {
            server = try APIServer(configuration: configuration, services: services, logger: logger)
        } catch IndexFileError.missing(let path) {
            throw MissingIndex(path: path)
        }
        try await server.run { url in
            // The line a script or a test waits for before its first request.
            print("serving \(url.absoluteString)")
            fflush(nil)  // all streams: stdout is a pipe to a script or a test
        }
    }
}

/// The server's role of the one executable (argv[0] `xkcd-search-serve`).
public enum ServeRole {
    public static let name = "xkcd-search-serve"

    public static func main(_ arguments: [String]) async {
        await XKCDSearchServe.main(arguments)
    }
}
