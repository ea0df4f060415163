import Foundation
import Synchronization
import XKCDModel
import XKCDStore

/// Where the comic shown last is remembered, for `next`, `prev` and commands without a number:
/// a file in the XDG state directory, one per index, so that an index on a read-only disk can
/// be browsed; this process's memory when that file cannot be written (or is not given).
///
/// ```swift
/// let shown = ShownComic(stateDirectory: paths.stateDirectory, databasePath: paths.databasePath)
/// shown.remember(327)
/// shown.current   // 327, also in the next process
/// ```
public struct ShownComic: Sendable {
    /// The file, or nil to remember in memory only.
    public let file: URL?
    private let key: String

    /// Numbers remembered by this process, by index: what a file could not keep.
    private static let memory = Mutex<[String: Comic.ID]>([:])

    /// The place for the comic shown last in the index at `databasePath`.
    ///
    /// - Parameters:
    ///   - stateDirectory: where the file goes; nil keeps the number in memory only.
    ///   - databasePath: the index's path, which names the file, so that each index has its own.
    public init(stateDirectory: URL?, databasePath: String) {
        // The file's own path, so that `--db idx.sqlite` from two directories names two indexes
        // and `./idx.sqlite` the same one as `idx.sqlite`.
        let databasePath = ComicDatabase.resolvedPath(databasePath)
        key = databasePath
        // A short name that differs per index.
        let hash = FNV1a.digest(of: databasePath.utf8)
        file = stateDirectory?.appendingPathComponent("shown-" + String(hash, radix: 16))
    }

    /// Memory only, for tests and in-memory indexes.
    public static var inMemory: ShownComic { ShownComic(stateDirectory: nil, databasePath: ":memory:\(UUID())") }

    /// The comic shown last, or nil before the first.
    public var current: Comic.ID? {
        if let id = Self.memory.withLock({ $0[key] }) { return id }
        guard let file, let data = try? Data(contentsOf: file) else { return nil }
        return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Remembers `id` in the file, or in memory when the file cannot be written.
    ///
    /// - Parameter id: the comic just shown.
    public func remember(_ id: Comic.ID) {
        if let file {
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("\(id)\n".utf8).write(to: file, options: .atomic)
                Self.memory.withLock { $0[key] = nil }
                return
            } catch {
                // A read-only home or state directory: this process keeps it.
            }
        }
        Self.memory.withLock { $0[key] = id }
    }
}
