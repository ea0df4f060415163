import ArgumentParser
import FoundationEssentials
import XKCDFiles
import XKCDKit

#if canImport(Glibc)
    import Glibc
#endif

/// How `show`, `latest`, `random`, `next` and `prev` draw the comic above its text.
///
/// `xkcd-search` decides whether to draw; `xkcd-search-index fetch-image` fetches and
/// `xkcd-search-image` decodes and draws, so that nothing of image support is linked into a search.
public struct ImageOptions: ParsableArguments, Sendable {
    /// auto, always, never: as `--color`.
    public typealias Mode = Terminal.ColorChoice

    public enum Format: String, CaseIterable, Sendable, ExpressibleByArgument {
        case auto, kitty, iterm, sixel, symbols
    }

    @Option(
        help: ArgumentHelp(
            "Draw the comic above the text: auto (when standard output is a terminal), always, never.",
            valueName: "when"))
    public var image: Mode = .auto

    @Option(
        help: ArgumentHelp(
            "kitty, iterm, sixel or symbols (Unicode blocks); auto asks the terminal's environment.",
            valueName: "format"))
    public var imageFormat: Format = .auto

    @Option(
        help: ArgumentHelp(
            "The most room the image may take, COLUMNSxROWS (default: the terminal's width, one screen high with the title).",
            valueName: "size"))
    public var imageSize: String?

    @Option(help: ArgumentHelp("Base URL of the comic images.", valueName: "url"))
    public var imageURL = defaultImageURL
    /// `XKCD_SEARCH_IMAGE_TIMEOUT`: seconds an image fetch waits without a byte, from 1 to 600,
    /// for a slow link or a test's image server on a loaded machine; nil when not set.
    /// `show`'s fetch and `serve`'s `/images/N` both read it.
    public static var timeoutFromEnvironment: Double? {
        ProcessInfo.processInfo.environment["XKCD_SEARCH_IMAGE_TIMEOUT"].flatMap(Double.init).map {
            min(600, max(1, $0))
        }
    }

    public static let defaultImageURL = "https://imgs.xkcd.com"

    /// `xkcd-search-image --for-pager`'s exit status when the image is in a pixel format, which
    /// a pager cannot show: nothing was drawn, and the terminal itself must take it.
    public static let needsTheTerminalStatus: Int32 = 4

    public init() {}

    public func validate() throws {
        if let imageSize, Self.size(imageSize) == nil {
            throw ValidationError("--image-size must be COLUMNSxROWS, such as 120x80, not '\(imageSize)'")
        }
        try Self.validateBaseURL(imageURL, option: "--image-url")
    }

    /// Whether to draw: `auto` on a terminal (not a dumb one), never on a pipe.
    public var drawsImage: Bool {
        switch image {
        case .always: true
        case .never: false
        case .auto: Terminal.isStandardOutputATerminal && environmentVariable("TERM") != "dumb"
        }
    }

    /// Takes `session`'s value for each option left at its default (the REPL's `repl --image …`).
    public mutating func takeDefaults(from session: ImageOptions) {
        if image == .auto { image = session.image }
        if imageFormat == .auto { imageFormat = session.imageFormat }
        if imageSize == nil { imageSize = session.imageSize }
        if imageURL == Self.defaultImageURL { imageURL = session.imageURL }
    }

    /// The options again, for `xkcd-search-image`.
    public var arguments: [String] {
        ["--image-format", imageFormat.rawValue, "--image-url", imageURL]
            + (imageSize.map { ["--image-size", $0] } ?? [])
    }

    /// The room for the image: `--image-size`, or the terminal's width and its height less two
    /// rows (80×24 when it is not a terminal), with the cell size in pixels when the terminal
    /// reports it. The two rows are the comic's title above the image and the pager's prompt
    /// or the first line of text below it: image and title are seen together, as chafa and
    /// other xkcd viewers fit an image to the screen.
    ///
    /// The terminal is standard output's, or standard error's when the image is drawn into a
    /// file to be paged with the text.
    public var box: (columns: Int, rows: Int, cellWidth: Int?, cellHeight: Int?) {
        let window = Terminal.windowSize ?? Terminal.windowSize(of: STDERR_FILENO)
        let (columns, rows) = window.map { (Int($0.ws_col), Int($0.ws_row)) } ?? (Terminal.width ?? 80, 24)
        let size = window ?? winsize()
        let reportsPixels = size.ws_xpixel > 0 && size.ws_ypixel > 0
        let cellWidth = reportsPixels ? Int(size.ws_xpixel) / columns : nil
        let cellHeight = reportsPixels ? Int(size.ws_ypixel) / rows : nil
        if let asked = imageSize.flatMap(Self.size) {
            return (asked.columns, asked.rows, cellWidth, cellHeight)
        }
        return (columns, max(1, rows - 2), cellWidth, cellHeight)
    }

    static func size(_ text: String) -> (columns: Int, rows: Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let columns = Int(parts[0]), let rows = Int(parts[1]),
            (1...2000).contains(columns), (1...4000).contains(rows)
        else { return nil }
        return (columns, rows)
    }

    static func validateBaseURL(_ value: String, option: String) throws {
        guard let url = URL(string: value), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("\(option) must be an http or https URL, not '\(value)'")
        }
        // libcurl would refuse it as a malformed URL, which reads like a network failure.
        if let port = url.port, !(1...65535).contains(port) {
            throw ValidationError("\(option) names port \(port), which is not a port (1 to 65535)")
        }
    }
}
