import Foundation
import Testing
import XKCDImage
import _XKCDTestSupport

/// The escape sequences that start and end each format, and what lies between.
private let escape: UInt8 = 0x1B

private func decoded(_ name: String) throws -> DecodedImage {
    try ImageDecoder.decode(try Fixtures.image(name))
}

/// The text of `bytes` without its ANSI SGR sequences (`ESC [ … m`).
private func visibleLines(_ bytes: [UInt8]) -> [String] {
    let text = String(decoding: bytes, as: UTF8.self)
    let plain = text.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
    return plain.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}

@Suite struct DecodingTests {
    @Test(arguments: [
        ("exploits_of_a_mom.png", 666, 205), ("alternative_energy_revolution.jpg", 726, 969),
        ("traffic_lights.gif", 713, 286), ("dependency.png", 385, 489),
    ])
    func decodesEachFormat(name: String, width: Int, height: Int) throws {
        let image = try decoded(name)
        #expect((image.width, image.height) == (width, height))
        #expect(image.pixels.count == width * height * 4)
        // A comic: mostly white paper, some black ink.
        let greys = stride(from: 0, to: image.pixels.count, by: 4).map { Int(image.pixels[$0]) }
        #expect(greys.filter { $0 > 200 }.count > greys.count / 2)
        #expect(greys.contains { $0 < 60 })
    }

    @Test func aDamagedFileIsRefused() throws {
        let error = #expect(throws: ImageError.self) { try decoded("damaged.png") }
        guard case .damaged? = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func bytesThatAreNoImageAreRefused() {
        #expect(throws: ImageError.unknownFormat) { try ImageDecoder.decode(Data("<html>404</html>".utf8)) }
        #expect(throws: ImageError.unknownFormat) { try ImageDecoder.decode(Data()) }
    }

    @Test func anImageAboveThePixelLimitIsRefusedBeforeDecoding() throws {
        #expect(throws: ImageError.tooLarge(width: 10000, height: 10000, limit: ImageDecoder.maxPixels)) {
            try decoded("oversized.png")
        }
        // 60000×60000: stb_image will not read even its size (it would pass 2^30 bytes).
        var huge = try Fixtures.image("oversized.png")
        huge.replaceSubrange(16..<24, with: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60])
        #expect(throws: ImageError.tooLarge(width: 60000, height: 60000, limit: ImageDecoder.maxPixels)) {
            try ImageDecoder.decode(huge)
        }
        // 65535×65535 in a JPEG's frame header (a baseline one: FF C0, length, precision, height,
        // width), the last FF C0 of the file: its EXIF thumbnail's comes first, and the coded
        // data after it never holds one (an FF there is followed by 00).
        var jpeg = try Fixtures.image("alternative_energy_revolution.jpg")
        let frame = try #require(jpeg.range(of: Data([0xFF, 0xC0]), options: .backwards))
        jpeg.replaceSubrange(frame.lowerBound + 5..<frame.lowerBound + 9, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: ImageError.tooLarge(width: 65535, height: 65535, limit: ImageDecoder.maxPixels)) {
            try ImageDecoder.decode(jpeg)
        }
        #expect(throws: ImageError.tooLarge(width: 666, height: 205, limit: 100_000)) {
            try ImageDecoder.decode(try Fixtures.image("exploits_of_a_mom.png"), maxPixels: 100_000)
        }
    }
}

@Suite struct RenderingTests {
    @Test func kittyIsOneAPCSequenceAfterAnother() throws {
        let output = try TerminalImage(
            try decoded("exploits_of_a_mom.png"), format: .kitty, box: ImageBox(columns: 80, rows: 48))
        let text = String(decoding: output.bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}_G"))
        #expect(text.contains("f=32") || text.contains("f=24"))  // raw RGBA or RGB pixels
        #expect(text.hasSuffix("\u{1B}\\"))
        let starts = text.components(separatedBy: "\u{1B}_G").count - 1
        let ends = text.components(separatedBy: "\u{1B}\\").count - 1
        #expect(starts > 1 && starts == ends)  // chunked: each chunk its own APC
    }

    @Test func itermIsOneOSC1337WithTheImageInBase64() throws {
        let output = try TerminalImage(
            try decoded("exploits_of_a_mom.png"), format: .iterm, box: ImageBox(columns: 80, rows: 48))
        let text = String(decoding: output.bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}]1337;File="))
        #expect(text.contains("inline=1"))
        let payload = try #require(text.split(separator: ":", maxSplits: 1).last)
        let base64 = payload.prefix { $0 != "\u{07}" && $0 != "\u{1B}" }
        #expect(base64.count > 1000)
        #expect(Data(base64Encoded: String(base64)) != nil)
        #expect(text.hasSuffix("\u{07}") || text.hasSuffix("\u{1B}\\"))
    }

    @Test func sixelIsADCSWithSixelData() throws {
        let output = try TerminalImage(
            try decoded("exploits_of_a_mom.png"), format: .sixel, box: ImageBox(columns: 80, rows: 48))
        let text = String(decoding: output.bytes, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}P"))
        let introducer = try #require(text.firstIndex(of: "q"))
        #expect(text[text.index(text.startIndex, offsetBy: 2)..<introducer].allSatisfy { $0.isNumber || $0 == ";" })
        #expect(text.hasSuffix("\u{1B}\\"))
        let body = text[text.index(after: introducer)...].dropLast(2)
        // Colour registers (#n;2;r;g;b), then sixel characters ? to ~, - for each band of six rows.
        #expect(body.contains("#"))
        #expect(body.allSatisfy { ($0.asciiValue ?? 0) >= 0x20 && ($0.asciiValue ?? 0) < 0x7F })
        #expect(body.filter { $0 == "-" }.count >= output.rows * 20 / 6 - 1)
    }

    @Test(arguments: [20, 47, 80, 133])
    func symbolArtFitsTheWidthAsked(columns: Int) throws {
        for name in ["exploits_of_a_mom.png", "dependency.png", "alternative_energy_revolution.jpg"] {
            let output = try TerminalImage(
                try decoded(name), format: .symbols, box: ImageBox(columns: columns, rows: 500))
            let lines = visibleLines(output.bytes)
            #expect(lines.count == output.rows)
            #expect(lines.allSatisfy { $0.unicodeScalars.count <= columns }, "\(name) at \(columns)")
            #expect(lines.map(\.unicodeScalars.count).max() == output.columns)
            #expect(output.columns == columns, "\(name): as wide as asked when the height allows")
        }
    }

    @Test func aTallImageIsShrunkToTheHeightAllowed() throws {
        let output = try TerminalImage(
            try decoded("dependency.png"), format: .symbols, box: ImageBox(columns: 100, rows: 30))
        #expect(output.rows <= 30)
        #expect(output.columns < 100)
        #expect(output.isShrunkToFit)
        #expect(visibleLines(output.bytes).count <= 30)
    }

    @Test func symbolsUseBlocksAndColourUnlessAskedNotTo() throws {
        let image = try decoded("traffic_lights.gif")
        let coloured = try TerminalImage(
            image, format: .symbols, box: ImageBox(columns: 60, rows: 40), environment: ["COLORTERM": "truecolor"])
        let text = String(decoding: coloured.bytes, as: UTF8.self)
        #expect(text.contains("\u{1B}[38;2;") || text.contains("\u{1B}[48;2;"))
        #expect(
            text.unicodeScalars.contains {
                (0x2580...0x259F).contains($0.value) || (0x1FB00...0x1FB3B).contains($0.value)
            })

        let plain = try TerminalImage(image, format: .symbols, box: ImageBox(columns: 60, rows: 40), usesColor: false)
        let plainText = String(decoding: plain.bytes, as: UTF8.self)
        #expect(!plainText.contains("38;2;") && !plainText.contains("48;2;") && !plainText.contains("38;5;"))
        #expect(
            plainText.unicodeScalars.contains {
                (0x2580...0x259F).contains($0.value) || (0x1FB00...0x1FB3B).contains($0.value)
            })
    }

    @Test func theCellSizeSetsThePixelsSent() throws {
        let image = try decoded("exploits_of_a_mom.png")
        let small = try TerminalImage(
            image, format: .sixel, box: ImageBox(columns: 40, rows: 48, cellWidth: 8, cellHeight: 16))
        let large = try TerminalImage(
            image, format: .sixel, box: ImageBox(columns: 40, rows: 48, cellWidth: 16, cellHeight: 32))
        #expect(large.bytes.count > small.bytes.count)
    }

    @Test func theFormatIsDetectedFromTheEnvironment() throws {
        #expect(try ImageFormat.detect(environment: ["TERM": "xterm-kitty"]) == .kitty)
        #expect(try ImageFormat.detect(environment: ["TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"]) == .iterm)
        #expect(try ImageFormat.detect(environment: ["TERM": "mlterm"]) == .sixel)
        #expect(try ImageFormat.detect(environment: ["TERM": "xterm-256color"]) == .symbols)
        #expect(try ImageFormat.detect(environment: [:]) == .symbols)
    }
}
