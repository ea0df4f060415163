import CChafa

/// How a terminal can be sent an image.
public enum ImageFormat: String, CaseIterable, Sendable {
    /// The kitty graphics protocol (kitty, WezTerm, Ghostty, Konsole): `ESC _G … ESC \`.
    case kitty
    /// iTerm2's inline images (iTerm2, WezTerm): `ESC ]1337;File=… BEL`.
    case iterm
    /// DEC sixels (foot, mlterm, xterm -ti vt340, Windows Terminal): `ESC P … q … ESC \`.
    case sixel
    /// Unicode block and sextant characters in colour: every terminal.
    case symbols

    /// What the terminal described by `environment` supports best, from libchafa's terminal
    /// database (`TERM`, `TERM_PROGRAM`, `KITTY_WINDOW_ID`, …); symbols when nothing else.
    public static func detect(environment: [String: String]) throws(ImageError) -> ImageFormat {
        try TerminalImage.loadLibrary()
        let info = TermInfo(environment: environment)
        defer { chafa_term_info_unref(info.pointer) }
        return [.kitty, .iterm, .sixel].first { info.has($0.beginSequence) } ?? .symbols
    }

    var pixelMode: ChafaPixelMode {
        switch self {
        case .kitty: CHAFA_PIXEL_MODE_KITTY
        case .iterm: CHAFA_PIXEL_MODE_ITERM2
        case .sixel: CHAFA_PIXEL_MODE_SIXELS
        case .symbols: CHAFA_PIXEL_MODE_SYMBOLS
        }
    }

    var beginSequence: ChafaTermSeq {
        switch self {
        case .kitty: CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1
        case .iterm: CHAFA_TERM_SEQ_BEGIN_ITERM2_IMAGE
        case .sixel: CHAFA_TERM_SEQ_BEGIN_SIXELS
        case .symbols: CHAFA_TERM_SEQ_RESET_ATTRIBUTES
        }
    }
}

/// The room an image may take on the screen.
public struct ImageBox: Sendable, Equatable {
    /// Width in cells; the image is as wide as this unless the height limit makes it narrower.
    public var columns: Int
    /// Height in cells it may not exceed.
    public var rows: Int
    /// A cell's size in pixels, when the terminal reports it (`TIOCGWINSZ`'s `ws_xpixel`/`ws_ypixel`
    /// divided by the columns and rows); otherwise 10×20, a common font's.
    public var cellWidth: Int
    public var cellHeight: Int

    public init(columns: Int, rows: Int, cellWidth: Int? = nil, cellHeight: Int? = nil) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
        self.cellWidth = max(1, cellWidth ?? 10)
        self.cellHeight = max(1, cellHeight ?? 20)
    }
}

/// An image turned into what a terminal prints.
public struct TerminalImage: Sendable {
    /// libchafa opened (Sources/CChafa), once per process; the reason when it could not be.
    private static let library: String? = {
        var reason = [CChar](repeating: 0, count: 160)
        guard xkcd_chafa_load(&reason, reason.count) == 0 else { return nil }
        return String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }()

    static func loadLibrary() throws(ImageError) {
        if let reason = library { throw .libraryMissing(reason: reason) }
    }

    /// The escape sequences or the lines of symbols, without a final newline.
    public var bytes: [UInt8]
    public var columns: Int
    public var rows: Int
    /// Whether the box's height made the image narrower than the box.
    public var isShrunkToFit: Bool

    /// Draws `image` with libchafa.
    ///
    /// - Parameters:
    ///   - image: The decoded pixels to draw.
    ///   - format: How the terminal is sent the image: one of its pixel protocols, or symbols.
    ///   - box: The room on the screen and the size of a cell; the image keeps its proportions
    ///     within it.
    ///   - usesColor: Symbols only: false draws them in the terminal's own colours (`NO_COLOR`).
    ///     Pixel formats are always in colour: they are the image.
    ///   - environment: Read for the terminal's escape sequences and for `COLORTERM`.
    /// - Throws: ``ImageError/libraryMissing(reason:)`` when libchafa cannot be opened (it is
    ///   not installed, or lacks a function).
    public init(
        _ image: DecodedImage, format: ImageFormat, box: ImageBox, usesColor: Bool = true,
        environment: [String: String] = [:]
    ) throws(ImageError) {
        try Self.loadLibrary()
        let fontRatio = Float(box.cellWidth) / Float(box.cellHeight)
        var (columns, rows) = (Int32(box.columns), Int32(box.rows))
        chafa_calc_canvas_geometry(Int32(image.width), Int32(image.height), &columns, &rows, fontRatio, 1, 0)
        self.columns = Int(columns)
        self.rows = Int(rows)
        self.isShrunkToFit = Int(columns) < box.columns

        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, columns, rows)
        chafa_canvas_config_set_cell_geometry(config, Int32(box.cellWidth), Int32(box.cellHeight))
        chafa_canvas_config_set_pixel_mode(config, format.pixelMode)
        if format == .symbols {
            let truecolor = ["truecolor", "24bit"].contains(environment["COLORTERM"]?.lowercased() ?? "")
            chafa_canvas_config_set_canvas_mode(
                config,
                !usesColor
                    ? CHAFA_CANVAS_MODE_FGBG : truecolor ? CHAFA_CANVAS_MODE_TRUECOLOR : CHAFA_CANVAS_MODE_INDEXED_240)
            let symbols = chafa_symbol_map_new()
            defer { chafa_symbol_map_unref(symbols) }
            chafa_symbol_map_add_by_tags(
                symbols,
                ChafaSymbolTags(
                    CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_SEXTANT.rawValue
                        | CHAFA_SYMBOL_TAG_SPACE.rawValue))
            chafa_canvas_config_set_symbol_map(config, symbols)
        }
        let canvas = chafa_canvas_new(config)
        defer { chafa_canvas_unref(canvas) }
        image.pixels.withUnsafeBufferPointer { pixels in
            chafa_canvas_draw_all_pixels(
                canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels.baseAddress, Int32(image.width), Int32(image.height),
                Int32(image.width * 4))
        }
        // A format asked for by name is drawn even when the environment does not name a terminal
        // that speaks it: the sequences come from libchafa's fallback description.
        let info = TermInfo(environment: environment)
        defer { chafa_term_info_unref(info.pointer) }
        if !info.has(format.beginSequence) {
            let fallback = chafa_term_db_get_fallback_info(chafa_term_db_get_default())
            chafa_term_info_supplement(info.pointer, fallback)
            chafa_term_info_unref(fallback)
        }
        let printed = chafa_canvas_print(canvas, info.pointer)!
        bytes = Array(UnsafeRawBufferPointer(start: printed.pointee.str, count: Int(printed.pointee.len)))
        g_string_free(printed, 1)
    }
}

/// A libchafa terminal description, detected from an environment; the caller unrefs it.
private struct TermInfo {
    var pointer: OpaquePointer

    init(environment: [String: String]) {
        var strings = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in strings { free(string) } }
        pointer = strings.withUnsafeMutableBufferPointer { envp in
            chafa_term_db_detect(chafa_term_db_get_default(), envp.baseAddress)
        }
    }

    func has(_ sequence: ChafaTermSeq) -> Bool {
        chafa_term_info_have_seq(pointer, sequence) != 0
    }
}
