import ArgumentParser
import FoundationEssentials
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
        // `XKCD_SEARCH_IMAGE_TIMEOUT` (seconds without a byte, from 1 to 600) sets another limit
        // than 3 s: for a slow link, or a test server on a loaded machine.
        let idle = ImageOptions.timeoutFromEnvironment.map { Duration.milliseconds(Int($0 * 1000)) }
        let fetcher = ImageFetcher(
            cache: cache, baseURL: URL(string: imageURL)!, wait: .terminal(idle: idle), logger: global.makeLogger())
        do {
            _ = try await fetcher.image(comic: comic, imageURL: img)
        } catch {
            Terminal.printError("no image: \(error)")
            throw ExitCode.failure
        }
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
