import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDIndexer
import XKCDKit

/// `xkcd-search-index fetch-image 327 <img> --image-url <base>`: what `show` runs when the image
/// is not kept yet; `xkcd-search-image` then draws it. A failure is one line on standard error.
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
        let source = HTTPComicSource(configuration: .init(), logger: global.makeLogger())
        let fetcher = ImageFetcher(source: source, cache: cache, baseURL: URL(string: imageURL)!)
        do {
            _ = try await fetcher.image(comic: comic, imageURL: img)
        } catch {
            Terminal.printError("no image: \(error)")
            throw ExitCode.failure
        }
    }
}

@main
enum IndexerMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == FetchImage.configuration.commandName {
            await FetchImage.main(Array(arguments.dropFirst()))
        } else {
            await XKCDSearchIndex.main(arguments)
        }
    }
}
