import Foundation

#if canImport(Glibc)
import Glibc
#endif

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
            switch run(executable.path, arguments: Array(words.dropFirst())) {
            case 0: return .opened(command: name)
            case nil: failures.append("\(name) could not be started")
            case let status?: failures.append("\(name) failed (exit status \(status))")
            }
        }
        if !failures.isEmpty { return .failed(reason: failures.joined(separator: "; ")) }
        let browser = browsers.isEmpty ? "$BROWSER is not set" : "$BROWSER (\(missing.dropLast().joined(separator: ", "))) was not found"
        return .unavailable(reason: "\(browser) and xdg-open is not on PATH")
    }

    /// Runs `path` in this process group (Foundation's Process puts a child in a group of its own,
    /// where reading the terminal stops it) and waits; nil when it could not be started.
    private func run(_ path: String, arguments: [String]) -> Int32? {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environ = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { environ.forEach { free($0) } }
        // While the browser runs, Ctrl-C is its to handle: this process waits it out.
        let previous = signal(SIGINT, SIG_IGN)
        defer { signal(SIGINT, previous) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        guard posix_spawn(&pid, path, nil, &attributes, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
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
