import Foundation
import XKCDCommandLine
import XKCDFiles
import XKCDKit

#if canImport(Glibc)
    import Glibc
#endif

/// A comic's image with its page, drawn by this executable started in other roles, so that a
/// search process never opens libchafa or libcurl: `xkcd-search-index fetch-image` when the
/// image is not kept yet, then `xkcd-search-image`.
///
/// - A kept image and the page read as one: the comic's heading, the image fitted to the
///   screen below it, then the rest of the text, all through the pager when the pager can show
///   the image (symbols; a pixel format is drawn on the terminal, and the text then follows
///   without a pager).
/// - An image not kept yet never holds up the text: the page is printed first, and the image
///   follows below it when it has come (`fetch-image` gives up within seconds).
/// - An image that could not be had lately (``ImageCache/missing(comic:imageURL:now:)``) is
///   not asked for again: the text shows at once, and `-v` says why there is no image.
///
/// A failure is one line (the child's, or this one's); the text is printed anyway.
struct ComicImage {
    var comic: Comic
    var options: ImageOptions
    var global: GlobalOptions

    private var cache: ImageCache { ImageCache(directory: global.paths.imagesDirectory) }

    /// Prints `page` (its first line the comic's heading) with the image.
    func show(with page: String) {
        let heading = page.prefix { $0 != "\n" }
        let rest = page.dropFirst(heading.count + 1)
        if cache.contains(comic: comic.id, imageURL: comic.imageURL) {
            showKept(heading: String(heading), rest: String(rest))
        } else if let missing = cache.missing(comic: comic.id, imageURL: comic.imageURL) {
            if global.verbose {
                Terminal.printError(
                    "no image: \(missing.reason) (at \(Self.clock(missing.since)); asked again after \(Self.clock(missing.until)))"
                )
            }
            startPager()
            print(page)
        } else {
            startPager()
            print(page)
            StandardStreams.flush()
            guard fetch() else { return }
            drawBelowTheText()
        }
    }

    /// Whether what is printed goes to a pager: the command line's, or the REPL's, which pages
    /// what it collected.
    private var isPaged: Bool {
        OutputCapture.isCollecting || (Pager.isAllowed && Pager.command(disabled: global.noPager) != nil)
    }

    private func startPager() {
        Pager.start(unless: global.noPager)
    }

    private func showKept(heading: String, rest: String) {
        guard isPaged else {
            print(heading)
            drawOnTerminal()
            return print(rest)
        }
        switch renderForPager() {
        case .drawn(let image):
            startPager()
            print(heading)
            write(image)
            print(rest)
        case .needsTheTerminal:
            // A pixel format: the pager would show its escape sequences as text, and would
            // scroll the image away. Image and text go to the terminal as they are.
            print(heading)
            drawOnTerminal()
            print(rest)
        case .failed:
            startPager()
            print(heading + "\n" + rest)
        }
    }

    private func drawBelowTheText() {
        guard isPaged else { return drawOnTerminal() }
        switch renderForPager() {
        case .drawn(let image): write(image)
        // The REPL can still draw on the terminal; a pager already running cannot: the kept
        // image is drawn above the text the next time.
        case .needsTheTerminal: if OutputCapture.isCollecting { drawOnTerminal() }
        case .failed: break
        }
    }

    // MARK: The children

    private var executables: (indexer: SiblingExecutable, drawer: SiblingExecutable)? {
        do {
            return (try SiblingExecutable.locate(.indexer), try SiblingExecutable.locate(.drawer))
        } catch {
            Terminal.printError("no image: \(error)")
            return nil
        }
    }

    private var drawerArguments: [String] { [String(comic.id), comic.imageURL] + options.arguments }

    /// Fetches the image into the cache; false when it could not be had (the child said why).
    private func fetch() -> Bool {
        guard let indexer = executables?.indexer else { return false }
        return spawn(indexer, ["fetch-image", String(comic.id), comic.imageURL, "--image-url", options.imageURL]) == 0
    }

    /// Draws on the terminal itself, even in the REPL, which collects the rest to page it
    /// (``OutputCapture/onTerminal(_:)``).
    private func drawOnTerminal() {
        guard let drawer = executables?.drawer else { return }
        StandardStreams.flush()  // what was printed comes before the image
        OutputCapture.onTerminal { _ = spawn(drawer, drawerArguments) }
    }

    private enum Rendered {
        case drawn([UInt8])
        case needsTheTerminal
        case failed
    }

    /// The image as a pager can show it, drawn into an unlinked temporary file: nothing reads
    /// while the drawer writes, so no pipe can fill.
    private func renderForPager() -> Rendered {
        guard let drawer = executables?.drawer else { return .failed }
        var template = Array((FileManager.default.temporaryDirectory.path + "/xkcd-search-image-XXXXXX").utf8CString)
        let file = mkstemp(&template)
        guard file >= 0 else { return .failed }
        defer { close(file) }
        unlink(template)
        switch spawn(drawer, drawerArguments + ["--for-pager"], standardOutput: file) {
        case 0:
            guard lseek(file, 0, SEEK_SET) == 0 else { return .failed }
            guard let drawn = try? InputReading.bytes(of: file, named: "the drawn image") else { return .failed }
            return .drawn(drawn)
        case ImageOptions.needsTheTerminalStatus: return .needsTheTerminal
        default: return .failed
        }
    }

    private func write(_ bytes: [UInt8]) {
        StandardStreams.writeOutput(bytes)
    }

    /// "14:05", local time.
    private static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        return formatter.string(from: date)
    }
}
