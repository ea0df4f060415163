import Foundation

/// Where xkcd-search keeps its files, following the XDG base directory specification.
public struct Paths: Sendable, Equatable {
    public var databaseFile: URL
    public var cacheDirectory: URL
    public var stateDirectory: URL

    /// `$XDG_DATA_HOME/xkcd-search/index.sqlite`, `$XDG_CACHE_HOME/xkcd-search/`,
    /// `$XDG_STATE_HOME/xkcd-search/`, each falling back to its default under `$HOME`.
    ///
    /// - Parameter database: a `--db` path: a file, or a directory to hold `index.sqlite`.
    public init(database: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        func base(_ variable: String, _ fallback: String) -> URL {
            if let value = environment[variable], value.hasPrefix("/") {
                return URL(fileURLWithPath: value, isDirectory: true)
            }
            return home.appendingPathComponent(fallback, isDirectory: true)
        }
        let dataDirectory = base("XDG_DATA_HOME", ".local/share").appendingPathComponent("xkcd-search")
        if let database {
            var isDirectory: ObjCBool = false
            let url = URL(fileURLWithPath: database)
            let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            databaseFile = (exists && isDirectory.boolValue) || database.hasSuffix("/")
                ? url.appendingPathComponent("index.sqlite") : url
        } else {
            databaseFile = dataDirectory.appendingPathComponent("index.sqlite")
        }
        cacheDirectory = base("XDG_CACHE_HOME", ".cache").appendingPathComponent("xkcd-search", isDirectory: true)
        stateDirectory = base("XDG_STATE_HOME", ".local/state").appendingPathComponent("xkcd-search", isDirectory: true)
    }
}
