import ArgumentParser
import Foundation
import XKCDKit

#if canImport(Glibc)
import Glibc
#endif

/// What the output streams are connected to, decided once per process.
public enum Terminal {
    public enum ColorChoice: String, CaseIterable, Sendable, ExpressibleByArgument {
        case auto, always, never

        // Spelled out: ArgumentParser's defaults describe each case through `String(describing:)`,
        // whose dynamic casts took a quarter of a millisecond of every search.
        public var defaultValueDescription: String { rawValue }
        public static var allValueStrings: [String] { allCases.map(\.rawValue) }
        public static var allValueDescriptions: [String: String] { [:] }
        public static var defaultCompletionKind: CompletionKind { .list(allValueStrings) }
    }

    public static var isStandardOutputATerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    public static var isStandardErrorATerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour follows the choice, then NO_COLOR (https://no-color.org), then whether stdout is a terminal.
    public static func usesColor(_ choice: ColorChoice, environment: (String) -> String? = environmentVariable) -> Bool {
        switch choice {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment("NO_COLOR"), !noColor.isEmpty { return false }
            if environment("TERM") == "dumb" { return false }
            return isStandardOutputATerminal
        }
    }

    /// Columns of the terminal on stdout, or nil when it is not a terminal.
    public static var width: Int? {
        var size = winsize()
        guard isStandardOutputATerminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
            if let columns = environmentVariable("COLUMNS").flatMap(Int.init) { return columns }
            return nil
        }
        return Int(size.ws_col)
    }

    public static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// Removes control characters that the data may hold, so that nothing from the index can move
/// the cursor or change the terminal's state.
public func sanitized(_ text: String, keepingNewlines: Bool = false) -> String {
    // Most text holds none of them: every scalar removed or replaced below is encoded with a
    // byte under 0x20, 0x7F, or a lead byte 0xC2 (U+0080-U+009F) or 0xE2 (the bidi controls).
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }) else { return text }
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x0A where keepingNewlines: result.append(scalar)
        case 0x09, 0x0A, 0x0D: result.append(" ")
        case 0x00..<0x20, 0x7F..<0xA0: continue
        case 0x202A...0x202E, 0x2066...0x2069: continue  // bidi overrides (#1137 "RTL")
        default: result.append(scalar)
        }
    }
    return String(result)
}
