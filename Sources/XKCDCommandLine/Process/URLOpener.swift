import Foundation

/// Opens a URL in the user's browser: `$BROWSER` first, then `xdg-open`.
///
/// `$BROWSER` may list several commands separated by `:`; each may hold `%s` for the URL,
/// otherwise the URL is its last argument. Commands run directly, never through a shell.
///
/// ```swift
/// switch URLOpener().open("https://xkcd.com/327/") {
/// case .opened: break
/// case .unavailable(let reason), .failed(let reason): print(url, reason)
/// }
/// ```
public struct URLOpener: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// The command ran and exited with status 0.
        case opened(command: String)
        /// No browser command could be found; the reason says what was looked for.
        case unavailable(reason: String)
        /// Every browser command found ran and failed (the reasons, in the order tried).
        case failed(reason: String)
    }

    let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Runs each browser command in turn until one exits with status 0.
    ///
    /// A browser runs in this terminal's foreground, with its standard input, output and error,
    /// so that w3m or lynx get the keyboard; Ctrl-C goes to the browser while it runs.
    public func open(_ url: String) -> Outcome {
        var missing: [String] = []
        var failures: [String] = []
        let browsers = (environment["BROWSER"] ?? "").split(separator: ":").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        for browser in browsers + ["xdg-open"] {
            var words = browser.split(separator: " ").map(String.init)
            guard let name = words.first else { continue }
            guard let executable = executable(named: name) else {
                missing.append(name)
                continue
            }
            if words.contains(where: { $0.contains("%s") }) {
                words = words.map { $0.replacingOccurrences(of: "%s", with: url) }
            } else {
                words.append(url)
            }
            do {
                let status = try ChildProcess.run(
                    executable.path, arguments: Array(words.dropFirst()), environment: environment,
                    handsInterruptsToChild: true)
                if status == 0 { return .opened(command: name) }
                failures.append("\(name) failed (exit status \(status))")
            } catch {
                failures.append("\(name) could not be started")
            }
        }
        if !failures.isEmpty { return .failed(reason: failures.joined(separator: "; ")) }
        let browser =
            browsers.isEmpty
            ? "$BROWSER is not set" : "$BROWSER (\(missing.dropLast().joined(separator: ", "))) was not found"
        return .unavailable(reason: "\(browser) and xdg-open is not on PATH")
    }

    /// The executable for a command name: a path as given, or the first match on `$PATH`.
    private func executable(named name: String) -> URL? {
        let manager = FileManager.default
        if name.contains("/") {
            return manager.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
        }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                manager.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
        }
        return nil
    }
}
