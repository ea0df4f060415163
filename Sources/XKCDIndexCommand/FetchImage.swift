import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDFiles
import XKCDIndexer
import XKCDKit

/// `xkcd-search-index fetch-image 327 <img> --image-url <base>`: what `show` runs when the image
/// is not kept yet; the drawer's role (`xkcd-search-image`) then draws it. A failure is one line on standard error.
///
/// A command of its own rather than a subcommand: `--image-url` would otherwise be taken by
/// the parent's `index --image-url`.
struct FetchImage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch-image", abstract: "Fetch a comic's image into the cache.", shouldDisplay: false)

    @Argument(help: "The comic's number.") var comic: Int
    @Argument(help: "Its JSON's img.") var img: String
    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("Base URL of the comic images.", valueName: "url"))
    var imageURL = ImageOptions.defaultImageURL

    func run() async throws {
        let cache = ImageCache(directory: global.paths.imagesDirectory)
        let source = HTTPComicSource(
            configuration: Self.httpConfiguration(idleSeconds: ImageOptions.timeoutFromEnvironment),
            logger: global.makeLogger())
        let fetcher = ImageFetcher(source: source, cache: cache, baseURL: URL(string: imageURL)!)
        do {
            _ = try await fetcher.image(comic: comic, imageURL: img)
        } catch {
            Terminal.printError("no image: \(error)")
            throw ExitCode.failure
        }
    }

    /// Someone waits at the terminal for the image, and the text is already shown: a server
    /// that accepts the connection and never answers is given up after 3 s without a byte, a
    /// slow one after 5 s in all, and each only once more. The longest wait is about 7 s, not
    /// the 2 minutes of four 30-second tries; a `Retry-After` is waited 1 s at most.
    ///
    /// `XKCD_SEARCH_IMAGE_TIMEOUT` (seconds without a byte, from 1 to 600) sets another limit,
    /// with 2 s more for the whole try: for a slow link, or a test server on a loaded machine.
    static func httpConfiguration(idleSeconds: Double?) -> HTTPComicSource.Configuration {
        let idle = idleSeconds ?? 3
        return HTTPComicSource.Configuration(
            requestTimeout: .milliseconds(Int(idle * 1000)), requestDeadline: .milliseconds(Int(idle * 1000) + 2000),
            retryPolicy: HTTPComicSource.RetryPolicy(maxAttempts: 2, maxRetryAfter: .seconds(1)))
    }
}

/// The indexer's role of the one executable (argv[0] `xkcd-search-index`): `index`, and
/// `fetch-image` for `show`.
public enum IndexRole {
    public static let name = "xkcd-search-index"

    public static func main(_ arguments: [String]) async {
        if arguments.first == FetchImage.configuration.commandName {
            await FetchImage.main(Array(arguments.dropFirst()))
        } else {
            await XKCDSearchIndex.main(arguments)
        }
    }
}
