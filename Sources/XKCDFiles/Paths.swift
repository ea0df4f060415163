import Foundation

/// Where xkcd-search keeps its files, following the XDG base directory specification.
public struct Paths: Sendable, Equatable {
    /// A path rather than a URL: SQLite opens paths.
    public var databasePath: String
    public var cacheDirectory: URL
    public var stateDirectory: URL
    /// `$XDG_CACHE_HOME/xkcd-search/images/`: the comics' images, fetched when first shown.
    public var imagesDirectory: URL

    /// `$XDG_DATA_HOME/xkcd-search/index.sqlite`, `$XDG_CACHE_HOME/xkcd-search/`,
    /// `$XDG_STATE_HOME/xkcd-search/`, each falling back to its default under `$HOME`.
    ///
    /// - Parameters:
    ///   - database: a `--db` path: a file, or a directory to hold `index.sqlite`;
    ///     when nil, `$XKCD_SEARCH_DB` if set.
    ///   - environment: reads an environment variable by name, nil when unset; the process's own
    ///     environment unless a test passes its own.
    public init(database: String? = nil, environment: (String) -> String? = environmentVariable) {
        // Joined as strings and made URLs once, at the end: the paths come as strings.
        let home = environment("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path
        func base(_ variable: String, _ fallback: String) -> String {
            if let value = environment(variable), value.hasPrefix("/") { return value }
            return joined(home, fallback)
        }
        // `--db` wins over the environment, as a command line does.
        if let database = database ?? environment("XKCD_SEARCH_DB").flatMap({ $0.isEmpty ? nil : $0 }) {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: database, isDirectory: &isDirectory)
            let isFolder = (exists && isDirectory.boolValue) || database.hasSuffix("/")
            databasePath = isFolder ? joined(database, "index.sqlite") : database
        } else {
            databasePath = joined(base("XDG_DATA_HOME", ".local/share"), "xkcd-search/index.sqlite")
        }
        cacheDirectory = URL(
            fileURLWithPath: joined(base("XDG_CACHE_HOME", ".cache"), "xkcd-search"), isDirectory: true)
        stateDirectory = URL(
            fileURLWithPath: joined(base("XDG_STATE_HOME", ".local/state"), "xkcd-search"), isDirectory: true)
        imagesDirectory = cacheDirectory.appendingPathComponent("images", isDirectory: true)
    }

}

private func joined(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

/// The value of one environment variable. `ProcessInfo.environment` copies every variable into a
/// new dictionary on each call, and a search asks for several: those copies made a whole search
/// process a third slower (docs/performance.md).
public func environmentVariable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
