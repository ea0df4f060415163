import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDKit

extension XKCDSearch {
    struct Identify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "identify",
            abstract: "Find the comic an image shows: which xkcd is this?",
            discussion: """
                Reads the words drawn in the image (a screenshot, a crop, a photo of a printout) \
                with Tesseract and finds the comics that hold them; a copy of a comic's own picture \
                (resized, recompressed) is found by it too, once 'index --images' has kept and \
                hashed the images. An image of up to 10 MB: PNG, JPEG, GIF, WebP or BMP.

                Examples:
                  xkcd-search identify screenshot.png
                  xclip -o -t image/png | xkcd-search identify -
                  xkcd-search identify --json --limit 3 slide.jpg

                Exit status: 0 with results, 1 when nothing fits, 2 for a file that is not an \
                image that can be read, or a usage error.
                """)

        @OptionGroup var global: GlobalOptions

        @Argument(
            help: "The image file; '-' reads it from standard input.",
            completion: .file(extensions: ["png", "jpg", "jpeg", "gif", "webp", "bmp"]))
        var file: String

        @Option(help: "How many comics to show.")
        var limit = IdentifyRequest.defaultLimit

        @Flag(help: "Print JSON: text, results: [{num, title, date, score, url, reasons: {words, image}}].")
        var json = false

        func validate() throws {
            guard !file.isEmpty else {
                throw ValidationError("identify needs an image file, or '-' for standard input")
            }
            // The request's own rules, worded with the options' names.
            do throws(RequestError) {
                _ = try IdentifyRequest(image: Data([0]), limit: limit)
            } catch {
                throw ValidationError(Advice.commandLineWords(for: error))
            }
        }

        func run() throws {
            let request = try IdentifyRequest(image: try readImage(), limit: limit)
            let found = try request.run(in: global.open())
            if json {
                try JSONOutput.print(IdentifyDocument(found))
            } else {
                print(Self.text(found, color: global.usesColor), terminator: "")
            }
            if found.results.isEmpty { throw ExitCode(1) }
        }

        /// The image's bytes, from the file or standard input, read up to one byte past the
        /// request's limit: a 500 MB file or a pipe that never ends is refused without being read.
        private func readImage() throws -> Data {
            let limit = IdentifyRequest.maximumBytes + 1
            do throws(LibraryError) {
                return Data(
                    try file == "-" ? InputReading.bytes(upTo: limit) : InputReading.bytes(ofFileAt: file, upTo: limit))
            } catch {
                // No image to read is a usage error, as an unreadable image is.
                Terminal.printError("Error: " + error.description)
                throw ExitCode(Terminal.usageErrorStatus)
            }
        }

        /// What was read, then one line per comic with the words it holds.
        static func text(_ found: IdentifyResults, color: Bool) -> String {
            let read = found.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            var lines = ["read: " + (read.isEmpty ? "(no words)" : sanitized(String(read.prefix(200))))]
            if found.results.isEmpty { lines.append("no comic fits the words read or the picture") }
            for comic in found.results {
                let title = color ? "\u{1B}[1m\(sanitized(comic.title))\u{1B}[0m" : sanitized(comic.title)
                let why = (comic.matchesImage ? ["the image matches"] : []) + comic.words.prefix(8)
                let words = why.isEmpty ? "" : "  [\(why.joined(separator: ", "))]"
                lines.append("#\(comic.id)  \(title)  (\(comic.date))  \(Comic.url(for: comic.id))\(words)")
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }
}
