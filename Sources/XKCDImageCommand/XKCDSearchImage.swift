import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDFiles
import XKCDImage
import XKCDKit

/// `xkcd-search-image 327 <img>`: draws a kept comic image on standard output; what `show` runs
/// once the image is in the cache (`xkcd-search-index fetch-image` puts it there).
///
/// A process of its own (the one executable run as `xkcd-search-image`), so that a search never
/// opens libchafa and GLib, and a drawing never opens libcurl. A failure is one line on standard
/// error.
struct XKCDSearchImage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xkcd-search-image",
        abstract: "Draw a kept comic image on standard output (run by 'xkcd-search show').")

    @Argument(help: "The comic's number.") var comic: Int
    @Argument(help: "Its JSON's img.") var img: String
    @OptionGroup var options: ImageOptions

    /// The output goes through a pager, which shows text and colour but not a pixel format's
    /// escape sequences: such an image is not drawn, and the exit status says so
    /// (``ImageOptions/needsTheTerminalStatus``), for `show` to draw it on the terminal.
    @Flag(help: .hidden) var forPager = false

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let cache = ImageCache(directory: Paths().imagesDirectory)
        let decoded: DecodedImage
        do {
            guard let data = cache.image(comic: comic, imageURL: img) else {
                throw ValidationError("#\(comic)'s image is not kept in \(cache.directory.path)")
            }
            decoded = try ImageDecoder.decode(data)
        } catch {
            if error is ImageError { cache.remove(comic: comic, imageURL: img) }  // fetched again next time
            Terminal.printError("no image: \(error)")
            throw ExitCode.failure
        }
        let drawn: TerminalImage
        do {
            let format = try ImageFormat(rawValue: options.imageFormat.rawValue) ?? .detect(environment: environment)
            if forPager, format != .symbols { throw ExitCode(ImageOptions.needsTheTerminalStatus) }
            let room = options.box
            drawn = try TerminalImage(
                decoded, format: format,
                box: ImageBox(
                    columns: room.columns, rows: room.rows, cellWidth: room.cellWidth, cellHeight: room.cellHeight),
                usesColor: environment["NO_COLOR"].map(\.isEmpty) ?? true, environment: environment)
        } catch let error as ImageError {
            Terminal.printError("no image: \(error)")  // libchafa is missing; the kept image is sound
            throw ExitCode.failure
        }
        var output = drawn.bytes + Array("\n".utf8)
        // Not after --image-size: the room asked for is what was given.
        if drawn.isShrunkToFit, options.imageSize == nil {
            output += Array(
                "(shrunk to fit the screen: 'xkcd-search open \(comic)' shows it whole, or --image-size 200x400)\n".utf8
            )
        }
        StandardStreams.writeOutput(output)
    }
}

/// The drawer's role of the one executable (argv[0] `xkcd-search-image`).
public enum ImageRole {
    public static let name = "xkcd-search-image"

    public static func main(_ arguments: [String]) {
        XKCDSearchImage.main(arguments)
    }
}
