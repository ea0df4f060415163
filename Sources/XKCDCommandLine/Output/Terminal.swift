import ArgumentParser
import Foundation
import Synchronization
import XKCDFiles
import XKCDKit

// Sanitizing moved into XKCDKit, which the server shares; the command line's users still name it here.
@_exported import func XKCDKit.sanitized

#if canImport(Glibc)
    import Glibc
#endif

/// What the output streams are connected to, decided once per process.
public enum Terminal: Sendable {
    public enum ColorChoice: String, CaseIterable, Sendable, ExpressibleByArgument {
        case auto, always, never
    }

    /// Whether what this process prints ends up on a terminal: standard output is one, or a
    /// pager started by ``Pager/start(unless:)`` reads it and writes to one.
    public static var isStandardOutputATerminal: Bool { isatty(outputTerminal) == 1 }

    /// Where printed text is finally shown: standard output, or once a pager reads standard
    /// output (a pipe), the terminal standard output was before. Colour and width are decided
    /// for that terminal, not for the pipe: `less -R` shows the colour, and text wrapped to the
    /// terminal needs no breaking mid-word by the pager.
    static var pagedTerminal: Int32? {
        get {
            let descriptor = pagedDescriptor.load(ordering: .relaxed)
            return descriptor >= 0 ? descriptor : nil
        }
        set { pagedDescriptor.store(newValue ?? -1, ordering: .relaxed) }
    }
    /// ``pagedTerminal``, -1 for none.
    private static let pagedDescriptor = Atomic<Int32>(-1)
    static var outputTerminal: Int32 { pagedTerminal ?? STDOUT_FILENO }
    public static var isStandardErrorATerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour follows the choice, then NO_COLOR (https://no-color.org), then whether stdout is a terminal.
    public static func usesColor(_ choice: ColorChoice, environment: (String) -> String? = environmentVariable) -> Bool
    {
        switch choice {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment("NO_COLOR"), !noColor.isEmpty { return false }
            if environment("TERM") == "dumb" { return false }
            return isStandardOutputATerminal
        }
    }

    /// The size of the terminal the output ends up on (columns, rows and, when it reports them,
    /// pixels), or nil when that is not a terminal.
    public static var windowSize: winsize? { windowSize(of: outputTerminal) }

    /// The size of the terminal on `descriptor`, or nil when it is not one.
    public static func windowSize(of descriptor: Int32) -> winsize? {
        var size = winsize()
        guard isatty(descriptor) == 1, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0
        else { return nil }
        return size
    }

    /// Columns of the terminal on stdout; else `COLUMNS`, else nil.
    public static var width: Int? {
        windowSize.map { Int($0.ws_col) } ?? environmentVariable("COLUMNS").flatMap(Int.init)
    }

    /// A size in bytes as people read it: `0 bytes`, `512 bytes`, `14.8 MB` (decimal units, as
    /// `ls -h --si` and ByteCountFormatter's file style, whose zero is "Zero KB").
    public static func size(_ bytes: Int) -> String {
        guard bytes >= 1000 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        var value = Double(bytes)
        var unit = 0
        let units = ["kB", "MB", "GB", "TB"]
        repeat {
            value /= 1000
            unit += 1
        } while value >= 999.95 && unit < units.count
        return String(format: "%.1f", value) + " " + units[unit - 1]
    }

    /// The columns a terminal gives `text`: two for a wide (East Asian) character, none for a
    /// combining mark, one for the rest.
    public static func columns(of text: String) -> Int {
        text.unicodeScalars.reduce(0) { total, scalar in
            if scalar.properties.generalCategory == .nonspacingMark
                || scalar.properties.generalCategory == .enclosingMark
            {
                return total
            }
            return total + (isWide(scalar) ? 2 : 1)
        }
    }

    /// East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, the blocks that hold
    /// letters a tag may use: Hangul, CJK, kana, fullwidth forms).
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            true
        default: false
        }
    }

    /// Writes `message` and a line feed to standard error, through ``sanitized(_:keepingNewlines:)``.
    public static func printError(_ message: String) {
        StandardStreams.writeError(sanitized(message, keepingNewlines: true) + "\n")
    }

    /// The exit status of a usage error or a malformed query, as grep and ripgrep use it (1 is
    /// "nothing found", 3 a partial index run).
    public static let usageErrorStatus: Int32 = 2

    /// Reports `error` as ArgumentParser would (`Error: …`, usage for a bad argument) and exits
    /// with its code, the message sanitized: what a file or a server said may be in it.
    public static func exit<Command: ParsableCommand>(_ command: Command.Type, withError error: any Error) -> Never {
        var code = command.exitCode(for: error)
        guard code != .success else { command.exit(withError: error) }
        // ArgumentParser's usage errors exit with sysexits' 64; a query the engine cannot read is
        // a usage error too.
        if code.rawValue == 64 || error is QueryError || error is SearchError || error is RequestError
            || isUnreadableComic(error) || ["bad-image", "image-too-large"].contains(ErrorClass(of: error).code)
        {
            code = ExitCode(usageErrorStatus)
        }
        // A command that printed its error itself exits with a bare status (`ExitCode`), which has
        // no message to print.
        let message = command.fullMessage(for: error)
        if !message.isEmpty { printError(Advice.adding(to: message, for: error)) }
        command.exit(withError: ExitCode(code.rawValue))
    }

    /// A comic typed as something that is no comic number (`show abc`, `show 0`): a usage error,
    /// unlike a number the index does not hold.
    private static func isUnreadableComic(_ error: any Error) -> Bool {
        switch error as? LibraryError {
        case .notANumber, .belowFirst: true
        default: false
        }
    }
}
