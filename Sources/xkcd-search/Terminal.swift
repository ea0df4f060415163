import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What the output streams are connected to, decided once per process.
struct Terminal {
    enum ColorChoice: String, CaseIterable, Sendable {
        case auto, always, never
    }

    static var isStandardOutputATerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var isStandardErrorATerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Colour follows the choice, then NO_COLOR (https://no-color.org), then whether stdout is a terminal.
    static func usesColor(_ choice: ColorChoice, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        switch choice {
        case .always: return true
        case .never: return false
        case .auto:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return isStandardOutputATerminal
        }
    }

    /// Columns of the terminal on stdout, or nil when it is not a terminal.
    static var width: Int? {
        var size = winsize()
        guard isStandardOutputATerminal, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else {
            if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) { return columns }
            return nil
        }
        return Int(size.ws_col)
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// Removes control characters that the data may hold, so that nothing from the index can move
/// the cursor or change the terminal's state.
func sanitized(_ text: String, keepingNewlines: Bool = false) -> String {
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

/// A one-line progress bar on standard error, redrawn at most ten times a second.
final class ProgressBar: Sendable {
    private let label: String
    private let start = Date()
    private let lastDraw = Mutex(Date.distantPast)

    init(label: String) { self.label = label }

    func update(completed: Int, total: Int, failed: Int) {
        let now = Date()
        let isDue = lastDraw.withLock { last in
            guard now.timeIntervalSince(last) >= 0.1 || completed == total else { return false }
            last = now
            return true
        }
        guard isDue else { return }
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(completed) / elapsed
        let fraction = total > 0 ? Double(completed) / Double(total) : 1
        let cells = 30
        let filled = Int(fraction * Double(cells))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled)
        let failures = failed > 0 ? ", \(failed) failed" : ""
        let line = String(format: "\r%@ %@ %d/%d (%.0f/s%@)\u{1B}[K", label, bar, completed, total, rate, failures)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
