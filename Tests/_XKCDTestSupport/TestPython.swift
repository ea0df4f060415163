import Foundation

/// The tests' own Python, in the virtual environment `make test-venv` makes from
/// Tests/requirements.txt: `XKCD_SEARCH_TEST_VENV`, or the build cache's default place.
public enum TestPython: Sendable {
    /// The virtual environment's directory.
    public static var environment: URL {
        if let path = ProcessInfo.processInfo.environment["XKCD_SEARCH_TEST_VENV"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let cache =
            ProcessInfo.processInfo.environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return cache.appendingPathComponent("xkcd-search-build/test-venv")
    }

    /// Its python3, or nil when `make test-venv` has not made it.
    public static var executable: URL? {
        let python = environment.appendingPathComponent("bin/python3")
        return FileManager.default.isExecutableFile(atPath: python.path) ? python : nil
    }

    /// Runs `python arguments` with `input` on its standard input to its end, and gives what it
    /// printed on standard output.
    public static func output(of python: URL, _ arguments: [String], input: Data) throws -> Data {
        let process = Process()
        process.executableURL = python
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let printed = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return printed
    }
}
