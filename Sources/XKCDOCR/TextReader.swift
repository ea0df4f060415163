import CTesseract
import FoundationEssentials
import Glibc
import Synchronization
import XKCDImage

/// Why the words of an image could not be read. One lowercase line; what to do about it is the
/// front end's to add.
public enum OCRError: Error, Equatable, CustomStringConvertible {
    /// libtesseract or Leptonica could not be opened (Debian's libtesseract5, liblept5).
    case libraryMissing(reason: String)
    /// Tesseract's English model could not be loaded (Debian's tesseract-ocr-eng).
    case modelMissing
    /// The bytes are no image Leptonica reads (PNG, JPEG, GIF, WebP, BMP, TIFF), or a damaged one.
    case notAnImage
    /// The header names more pixels than an image of a comic could need.
    case tooLarge(width: Int, height: Int)
    /// An animation of more frames than any comic has.
    case tooManyFrames(limit: Int)

    public var description: String {
        switch self {
        case .libraryMissing(let reason): "cannot read the words of an image: \(reason)"
        case .modelMissing: "cannot read the words of an image: Tesseract's English model is missing"
        case .notAnImage: "this is not an image that can be read (PNG, JPEG, GIF, WebP or BMP)"
        case .tooLarge(let width, let height):
            "the image is \(width)x\(height) pixels, larger than any comic (at most \(TextReader.maximumPixels / 1_000_000) million pixels)"
        case .tooManyFrames(let limit): "the animation has more than \(limit) frames, more than any comic"
        }
    }
}

/// Reads the words drawn in an image with Tesseract (page segmentation mode 11, sparse text: the
/// best single mode on the development set, docs/identify.md), after making it grey and, when
/// small, twice as large. One image at a time: Tesseract's engine is not shared between threads.
///
/// ```swift
/// let reader = try TextReader()
/// let words = try reader.read(pngData)   // "LITTLE BOBBY TABLES ..."
/// ```
public final class TextReader: Sendable {
    /// The most pixels an image may have: a comic is at most a few million (Up Goer Five is 740 x
    /// 3,214); a header claiming 60000 x 60000 is refused before anything is decoded.
    public static let maximumPixels = ImageDecoder.maxPixels
    /// Images whose longer side is below this are read at twice their size: Tesseract reads
    /// letters of 20-30 pixels best, and a resized comic's are 8-12.
    static let upscaleBelow: Int32 = 1500

    /// Tesseract's engine: used under `lock` only, one image at a time.
    nonisolated(unsafe) private let engine: OpaquePointer
    private let lock = Mutex(())
    /// The page segmentation modes each image is read with, their texts joined.
    static let modes = [PSM_SPARSE_TEXT, PSM_SINGLE_BLOCK]

    /// Opens Tesseract with its English model.
    ///
    /// - Throws: ``OCRError/libraryMissing(reason:)`` or ``OCRError/modelMissing``.
    public init() throws(OCRError) {
        // Before libgomp starts: one thread each, so that two requests do not fight over two
        // cores (docs/identify.md measured it slower otherwise).
        setenv("OMP_THREAD_LIMIT", "1", 0)
        var error = [CChar](repeating: 0, count: 256)
        guard xkcd_tesseract_load(&error, error.count) == 1 else {
            throw .libraryMissing(
                reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard let handle = TessBaseAPICreate() else { throw .modelMissing }
        // Tesseract's messages ("Estimating resolution as …") go to its debug file, not stderr.
        _ = TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        guard TessBaseAPIInit3(handle, nil, "eng") == 0 else {
            TessBaseAPIDelete(handle)
            throw .modelMissing
        }
        _ = TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        TessBaseAPISetPageSegMode(handle, PSM_SPARSE_TEXT)
        engine = handle
    }

    deinit {
        TessBaseAPIEnd(engine)
        TessBaseAPIDelete(engine)
    }

    /// The text Tesseract reads in the image `data`, as it reads it: capitals, misread letters,
    /// words broken across lines.
    ///
    /// - Parameter data: the image file's bytes.
    /// - Returns: the text read; empty when the image holds no words Tesseract can see.
    /// - Throws: ``OCRError/notAnImage`` or ``OCRError/tooLarge(width:height:)``.
    public func read(_ data: Data) throws(OCRError) -> String {
        if let decoded = try Self.decodedBySTB(data) { return try read(decoded) }
        var pix: UnsafeMutablePointer<PIX>? = try Self.decodedByLeptonica(data)
        defer { pixDestroy(&pix) }
        return try read(pix)
    }

    /// The text Tesseract reads in pixels already decoded (by ``ImageDecoder``, as `identify`
    /// decodes an image once for its words and its perceptual hash).
    ///
    /// - Parameter image: the decoded image.
    /// - Returns: the text read; empty when the image holds no words Tesseract can see.
    /// - Throws: ``OCRError/notAnImage`` when it cannot be made grey.
    public func read(_ image: DecodedImage) throws(OCRError) -> String {
        var pix: UnsafeMutablePointer<PIX>? = try Self.greyPix(image)
        defer { pixDestroy(&pix) }
        return try read(pix)
    }

    /// Reads `pix` (any depth): grey, twice the size when small, in each of ``modes``.
    private func read(_ pix: UnsafeMutablePointer<PIX>?) throws(OCRError) -> String {
        var grey = pixConvertTo8(pix, 0)
        guard grey != nil else { throw .notAnImage }
        defer { pixDestroy(&grey) }
        var scaled: UnsafeMutablePointer<PIX>?
        if max(pixGetWidth(grey), pixGetHeight(grey)) < Self.upscaleBelow { scaled = pixScale(grey, 2, 2) }
        defer { if scaled != nil { pixDestroy(&scaled) } }
        let image = scaled ?? grey
        return lock.withLock { _ -> String in
            // Sparse text finds the words of panels and balloons; one block of text reads lines
            // of small lettering in a crop better (docs/identify.md): the words of both. The image
            // is set again for each: Tesseract keeps a page's layout until it is.
            return Self.modes.map { mode in
                TessBaseAPISetPageSegMode(engine, mode)
                TessBaseAPISetImage2(engine, image)
                defer { TessBaseAPIClear(engine) }
                guard let text = TessBaseAPIGetUTF8Text(engine) else { return "" }
                defer { TessDeleteText(text) }
                return String(decoding: UnsafeRawBufferPointer(start: text, count: strlen(text)), as: UTF8.self)
            }.joined(separator: "\n")
        }
    }
}

extension TextReader {
    /// PNG, JPEG and GIF (the first frame) decoded by stb_image (``ImageDecoder``), which says
    /// nothing on standard error (libpng, under Leptonica, writes "read error" for a truncated
    /// file), or nil for a format stb_image does not read.
    ///
    /// - Parameter data: the image file's bytes.
    /// - Returns: the decoded pixels, or nil when stb_image does not know the format.
    /// - Throws: ``OCRError/tooLarge(width:height:)`` or ``OCRError/notAnImage`` for a damaged one.
    static func decodedBySTB(_ data: Data) throws(OCRError) -> DecodedImage? {
        do {
            return try ImageDecoder.decode(data, maxPixels: maximumPixels)
        } catch .unknownFormat {
            return nil
        } catch .tooLarge(let width, let height, _) {
            throw .tooLarge(width: width, height: height)
        } catch .tooManyFrames(let limit) {
            throw .tooManyFrames(limit: limit)
        } catch {
            throw .notAnImage
        }
    }

    /// `image` as Leptonica's 8-bit grey image: luma (ITU-R BT.601), on white where the image is
    /// transparent.
    ///
    /// - Parameter image: decoded pixels, RGBA.
    /// - Returns: the grey image; the caller destroys it.
    /// - Throws: ``OCRError/notAnImage`` when Leptonica cannot make one of that size.
    static func greyPix(_ image: DecodedImage) throws(OCRError) -> UnsafeMutablePointer<PIX> {
        guard image.width > 0, image.height > 0, let pix = pixCreate(Int32(image.width), Int32(image.height), 8),
            let words = pixGetData(pix)
        else { throw .notAnImage }
        // Leptonica keeps an 8-bit row in 32-bit words, the first pixel in a word's highest byte:
        // on a little-endian machine byte j of the row sits at j ^ 3.
        let rowBytes = Int(pixGetWpl(pix)) * 4
        let row = UnsafeMutableRawPointer(words).assumingMemoryBound(to: UInt8.self)
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let offset = (y * image.width + x) * 4
                    let alpha = Int(pixels[offset + 3])
                    let luma =
                        (299 * Int(pixels[offset]) + 587 * Int(pixels[offset + 1]) + 114 * Int(pixels[offset + 2]))
                        / 1000
                    row[y * rowBytes + (x ^ 3)] = UInt8((luma * alpha + 255 * (255 - alpha)) / 255)
                }
            }
        }
        return pix
    }

    /// What stb_image does not read (WebP, BMP, TIFF), by Leptonica.
    ///
    /// - Parameter data: the image file's bytes.
    /// - Returns: the image as Leptonica reads it.
    /// - Throws: ``OCRError/notAnImage`` or ``OCRError/tooLarge(width:height:)``.
    static func decodedByLeptonica(_ data: Data) throws(OCRError) -> UnsafeMutablePointer<PIX> {
        var width: Int32 = 0
        var height: Int32 = 0
        let header = data.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.bindMemory(to: UInt8.self).baseAddress else { return 1 }
            var format: Int32 = 0
            var bits: Int32 = 0
            var samples: Int32 = 0
            var colormap: Int32 = 0
            return pixReadHeaderMem(base, bytes.count, &format, &width, &height, &bits, &samples, &colormap)
        }
        guard header == 0, width > 0, height > 0 else { throw .notAnImage }
        guard Int(width) * Int(height) <= maximumPixels else {
            throw .tooLarge(width: Int(width), height: Int(height))
        }
        let pix = data.withUnsafeBytes { bytes in
            bytes.bindMemory(to: UInt8.self).baseAddress.flatMap { pixReadMem($0, bytes.count) }
        }
        guard let pix else { throw .notAnImage }
        return pix
    }
}

extension TextReader {
    /// The process's one reader, opened when first asked for: a model load is a tenth of a
    /// second, and Tesseract's engine reads one image at a time anyway.
    public static let shared: Result<TextReader, OCRError> = Result { () throws(OCRError) in try TextReader() }
}
