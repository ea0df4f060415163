import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDImage
import XKCDIndexer
import XKCDKit

/// `xkcd-search-index draw-image 327 <img>`: what `show` runs to draw a comic above its text.
/// The image comes from the cache, or is fetched and kept; a failure is one line on standard
/// error, and the exit status stays 0, for the text follows anyway.
///
/// A command of its own rather than a subcommand: `--image-url` means the same in both, and a
/// subcommand would hand it to the parent's `index --image-url`.
struct DrawImage: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "draw-image", abstract: "Draw a comic's image on standard output.", shouldDisplay: false)

    @Argument(help: "The comic's number.") var comic: Int
    @Argument(help: "Its JSON's img.") var img: String
    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: ImageOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let cache = ImageCache(directory: global.paths.imagesDirectory)
        let decoded: DecodedImage
        do {
            // The network stack is set up only when the image is not kept.
            var data = cache.image(comic: comic, imageURL: img)
            if data == nil {
                let source = HTTPComicSource(configuration: .init(), logger: global.makeLogger())
                let fetcher = ImageFetcher(source: source, cache: cache, baseURL: URL(string: options.imageURL)!)
                data = try await fetcher.image(comic: comic, imageURL: img)
            }
            decoded = try ImageDecoder.decode(data!)
        } catch {
            if error is ImageError { cache.remove(comic: comic, imageURL: img) }  // fetched again next time
            return Terminal.printError("no image: \(error)")
        }
        let format = ImageFormat(rawValue: options.imageFormat.rawValue) ?? .detect(environment: environment)
        let room = options.box
        let drawn = TerminalImage(
            decoded, format: format,
            box: ImageBox(columns: room.columns, rows: room.rows, cellWidth: room.cellWidth, cellHeight: room.cellHeight),
            usesColor: environment["NO_COLOR"].map(\.isEmpty) ?? true, environment: environment)
        var output = drawn.bytes + Array("\n".utf8)
        if drawn.isShrunkToFit {
            output += Array("(shrunk to fit two screens: 'xkcd-search open \(comic)' shows it whole, or --image-size 200x400)\n".utf8)
        }
        FileHandle.standardOutput.write(Data(output))
    }
}

@main
enum IndexerMain {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == DrawImage.configuration.commandName {
            await DrawImage.main(Array(arguments.dropFirst()))
        } else {
            await XKCDSearchIndex.main(arguments)
        }
    }
}
