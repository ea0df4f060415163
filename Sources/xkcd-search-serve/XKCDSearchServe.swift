import ArgumentParser
import Foundation
import Logging
import XKCDCommandLine
import XKCDKit
import XKCDServer

/// `xkcd-search serve`: the only executable that links Hummingbird and SwiftNIO.
/// `xkcd-search` checks the arguments, then runs this one with them.
@main
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

    /// `XKCD_SEARCH_IMAGE_TIMEOUT` (seconds without a byte, from 1 to 600), as `show` reads it:
    /// for a slow link, or a test's image server on a loaded machine; 5 s otherwise.
    private static var imageTimeout: Duration {
        let seconds = ProcessInfo.processInfo.environment["XKCD_SEARCH_IMAGE_TIMEOUT"].flatMap(Double.init)
        return .milliseconds(Int((seconds.map { min(600, max(1, $0)) } ?? 5) * 1000))
    }

    private func serve() async throws {
        // The access log is the server's output: at info always, the query strings with -v.
        var logger = GlobalOptions.makeLogger(verbose: true)
        logger.logLevel = global.verbose ? .debug : .info
        // A pool: the readers answer searches side by side, and never wait for a writer.
        let database = try global.openDatabase(connections: .pool)
        let configuration = APIServer.Configuration(
            host: options.host, port: options.port, isReadOnly: options.readOnly, allowedHosts: options.allowedHost,
            requestDeadline: .seconds(options.deadline), imageBaseURL: URL(string: options.imageURL)!,
            imageTimeout: Self.imageTimeout)
        if !configuration.isLoopback, !options.readOnly {
            Terminal.printError(
                "warning: serving on \(options.host) without --read-only: anyone who reaches it can change the favourites")
        }
        let server = APIServer(
            configuration: configuration, database: database, imagesDirectory: global.paths.imagesDirectory, logger: logger)
        try await server.run { url in
            // The line a script or a test waits for before its first request.
            print("serving \(url.absoluteString)")
            fflush(nil)  // all streams: stdout is a pipe to a script or a test
        }
    }
}
