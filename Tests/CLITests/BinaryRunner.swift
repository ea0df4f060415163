import Foundation
import XKCDModel
import _XKCDTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the built `xkcd-search` executable as a child process, in a sandbox of its own.
///
/// Every run gets `HOME` and the `XDG_*_HOME` variables pointed into `sandbox`, so no test reads
/// or writes the real index or cache. Output goes to files, not pipes, so a chatty child can
/// never block on a full pipe.
///
/// ```swift
/// let cli = try BinaryRunner(sandbox: directory)
/// let result = try await cli.run(["search", "bobby", "tables", "--db", path])
/// #expect(result.status == 0)
/// #expect(result.stdoutLines.first?.hasPrefix("#327") == true)
/// ```
///
/// The executable is looked for in `$XKCD_SEARCH_BINARY`, then in the build products directory
/// the test bundle runs from (which is right for `--scratch-path` builds too), then in the
/// package's `.build*/debug/` directories (newest first). `swift build --build-tests` builds it.
struct BinaryRunner: Sendable {
    /// What a finished run left behind.
    struct Output: Sendable, CustomStringConvertible {
        /// The exit status, or the signal number when `signal` is set.
        var status: Int32
        /// The signal that ended the process (SIGKILL after a timeout), or nil after a normal exit.
        var signal: Int32?
        var stdout: String
        var stderr: String
        var timedOut: Bool
        /// The arguments the child was started with, for messages.
        var arguments: [String] = []

        var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }
        var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) }

        var description: String {
            let ending =
                timedOut
                ? "hung: killed by the test's hang guard: xkcd-search \(arguments.joined(separator: " "))"
                : signal.map { "signal \($0)" } ?? "exit \(status)"
            return "\(ending)\n--- stdout\n\(stdout)\n--- stderr\n\(stderr)"
        }
    }

    /// A child process that is still running: for tests that kill it on purpose.
    final class Child: Sendable {
        let process: Process
        let outputDirectory: URL
        let arguments: [String]

        fileprivate init(process: Process, outputDirectory: URL, arguments: [String]) {
            self.process = process
            self.outputDirectory = outputDirectory
            self.arguments = arguments
        }

        var pid: Int32 { process.processIdentifier }
        var isRunning: Bool { process.isRunning }

        /// What the child has written to standard error so far.
        var stderrSoFar: String { writtenSoFar("stderr") }

        /// What the child has written to standard output so far.
        var stdoutSoFar: String { writtenSoFar("stdout") }

        private func writtenSoFar(_ name: String) -> String {
            String(
                decoding: (try? Data(contentsOf: outputDirectory.appendingPathComponent(name))) ?? Data(), as: UTF8.self
            )
        }

        /// Sends `signal` (SIGKILL by default) to the child.
        func kill(_ signal: Int32 = SIGKILL) {
            _ = systemKill(pid, signal)
        }

        /// Waits for the child to end. `timeout` only guards against a hang: past it the child is
        /// killed and the output says `timedOut` and what hung.
        func wait(timeout: Duration = BinaryRunner.hangGuard) async -> Output {
            let deadline = ContinuousClock.now + timeout
            var timedOut = false
            while process.isRunning {
                if ContinuousClock.now >= deadline {
                    timedOut = true
                    kill(SIGKILL)
                    process.waitUntilExit()
                    break
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
            process.waitUntilExit()
            let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
            func read(_ name: String) -> String {
                let data = (try? Data(contentsOf: outputDirectory.appendingPathComponent(name))) ?? Data()
                return String(decoding: data, as: UTF8.self)
            }
            let output = Output(
                status: process.terminationStatus, signal: signal, stdout: read("stdout"), stderr: read("stderr"),
                timedOut: timedOut, arguments: arguments)
            try? FileManager.default.removeItem(at: outputDirectory)
            return output
        }
    }

    /// How long a child may run before it is taken to hang. Not a measure of speed: a run on a
    /// loaded 2-core machine may take many times what it takes on an idle one, and every test
    /// waits for the child's end, so this only bounds a hang, and the message names the command.
    static let hangGuard: Duration = .seconds(600)

    /// `show`'s wait for an image server without a byte (`XKCD_SEARCH_IMAGE_TIMEOUT`): 3 s for a
    /// person, minutes for the in-process fixture server, which a loaded machine can leave
    /// seconds behind. A test of that limit takes the variable out.
    static let imageTimeout = "300"

    let executable: URL
    /// The environment every run starts from: this process's, with the sandbox's home directories.
    let environment: [String: String]
    /// Whether `index` runs embed comics for search by meaning. Most tests are about fetching and
    /// storing, and embedding is most of an index run's CPU: without it they run `index
    /// --no-embed`, which the runner adds.
    let embeds: Bool

    /// - Parameters:
    ///   - sandbox: a directory that stands in for `$HOME`; the XDG directories go under it.
    ///   - executable: the `xkcd-search` to run; the one the tests built when nil.
    ///   - embeds: whether `index` runs embed comics (see ``embeds``).
    init(sandbox: URL, executable: URL? = nil, embeds: Bool = false) throws {
        self.embeds = embeds
        self.executable = try executable ?? Self.locateExecutable()
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = sandbox.path
        environment["XDG_DATA_HOME"] = sandbox.appendingPathComponent("data").path
        environment["XDG_CACHE_HOME"] = sandbox.appendingPathComponent("cache").path
        environment["XDG_STATE_HOME"] = sandbox.appendingPathComponent("state").path
        environment["XDG_CONFIG_HOME"] = sandbox.appendingPathComponent("config").path
        environment["NO_COLOR"] = "1"
        environment["XKCD_SEARCH_IMAGE_TIMEOUT"] = Self.imageTimeout
        self.environment = environment
    }

    /// Runs `xkcd-search arguments…` to completion.
    ///
    /// - Parameters:
    ///   - environment: variables added to (or replacing) the sandbox environment.
    ///   - stdin: bytes for standard input; standard input is empty when nil.
    ///   - timeout: a hang guard: the child is killed with SIGKILL after this long, and the output
    ///     says `timedOut`.
    ///   - wrapper: a command line that runs the executable, given as its last arguments with
    ///     `arguments` after it (`setpriv …` to run it as another user).
    func run(
        _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil,
        timeout: Duration = BinaryRunner.hangGuard, wrapper: [String] = []
    ) async throws -> Output {
        let child = try launch(arguments, environment: environment, stdin: stdin, wrapper: wrapper)
        return await child.wait(timeout: timeout)
    }

    /// Starts `xkcd-search arguments…` and returns at once.
    func launch(
        _ arguments: [String], environment: [String: String] = [:], stdin: Data? = nil, wrapper: [String] = []
    ) throws -> Child {
        let outputDirectory = try makeTemporaryDirectory("xkcd-cli-output")
        let stdoutURL = outputDirectory.appendingPathComponent("stdout")
        let stderrURL = outputDirectory.appendingPathComponent("stderr")
        let stdinURL = outputDirectory.appendingPathComponent("stdin")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        try (stdin ?? Data()).write(to: stdinURL)

        var arguments = arguments
        if !embeds, arguments.first == "index", !arguments.contains("--help") {
            arguments.append("--no-embed")
        }
        // The fixture server runs in the test process, which a loaded machine can leave seconds
        // behind: a request timeout that is not under test is a hang guard too.
        if arguments.first == "index", !arguments.contains("--help"),
            !arguments.contains(where: { $0.hasPrefix("--timeout") })
        {
            arguments += ["--timeout", "600"]
        }
        // Likewise a server's per-request deadline, unless the test sets one.
        if arguments.first == "serve", !arguments.contains("--help"), !arguments.contains("--deadline") {
            arguments += ["--deadline", "600"]
        }
        // And the deadline of reading an image's words (identify), which a debug build on a
        // loaded machine can pass.
        if arguments.first == "serve", !arguments.contains("--help"), !arguments.contains("--identify-deadline") {
            arguments += ["--identify-deadline", "600"]
        }
        let process = Process()
        if wrapper.isEmpty {
            process.executableURL = executable
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = wrapper + [executable.path] + arguments
        }
        process.environment = self.environment.merging(environment) { _, new in new }
        process.standardInput = try FileHandle(forReadingFrom: stdinURL)
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: outputDirectory)
            throw error
        }
        return Child(process: process, outputDirectory: outputDirectory, arguments: arguments)
    }

    // MARK: Finding the executable

    struct NotBuilt: Error, CustomStringConvertible {
        var searched: [String]
        var description: String {
            "xkcd-search is not built (run `swift build --build-tests` first); looked in:\n"
                + searched.joined(separator: "\n")
        }
    }

    static func locateExecutable() throws -> URL {
        let fileManager = FileManager.default
        if let path = ProcessInfo.processInfo.environment["XKCD_SEARCH_BINARY"] {
            return URL(fileURLWithPath: path)
        }
        var searched: [String] = []
        // The products directory holds the test bundle and the resource bundles next to the executable.
        var productDirectories: [URL] = []
        if let executable = Bundle.main.executableURL {
            productDirectories.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        productDirectories.append(Bundle.main.bundleURL)
        productDirectories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        // Fixtures.corpusURL is <products>/<package>__XKCDTestSupport.resources/Fixtures/corpus.
        productDirectories.append(
            Fixtures.corpusURL.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
        for directory in productDirectories {
            let candidate = directory.appendingPathComponent("xkcd-search")
            searched.append(candidate.path)
            if isExecutableFile(candidate) { return candidate }
        }
        // Last resort: any .build*/debug/xkcd-search in the package, the newest first.
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let names = (try? fileManager.contentsOfDirectory(atPath: packageRoot.path)) ?? []
        let candidates = names.filter { $0.hasPrefix(".build") }.sorted()
            .map { packageRoot.appendingPathComponent($0).appendingPathComponent("debug/xkcd-search") }
            .filter(isExecutableFile)
        searched.append(packageRoot.appendingPathComponent(".build*/debug/xkcd-search").path)
        func modified(_ url: URL) -> Date {
            (try? fileManager.attributesOfItem(atPath: url.resolvingSymlinksInPath().path))?[.modificationDate]
                as? Date ?? .distantPast
        }
        if let newest = candidates.max(by: { modified($0) < modified($1) }) { return newest }
        throw NotBuilt(searched: searched)
    }

    private static func isExecutableFile(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: url.path)
    }
}

/// `kill(2)`, under a name that does not clash with ``BinaryRunner/Child/kill(_:)``.
private func systemKill(_ pid: Int32, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}

/// A fresh empty directory under the system temporary directory; `body` runs with it, and it is
/// removed afterwards, even on failure.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = try makeTemporaryDirectory("xkcd-cli-tests")
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// Runs a tool found on `PATH` (`sqlite3`, `ldd`) to completion; its standard output and error
/// together.
func runTool(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await offTheTaskPool { try runToolWaiting(arguments) }
}

/// ``runTool(_:)`` on the calling thread.
func runToolWaiting(_ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
