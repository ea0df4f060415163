import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The comics' images kept on disk, one file a comic: `327-exploits_of_a_mom.png`.
///
/// Each file is written whole or not at all (a temporary `.NAME.PID.partial` renamed), so a run
/// that is killed leaves no half image behind, and the next one fetches only what is missing.
public struct ImageCache: Sendable {
    public var directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    /// The file name for a comic's image: its number and the image's own name; nil when the
    /// comic has no image of its own (`img` is `https://imgs.xkcd.com/comics/`: #1608, #1663).
    public static func fileName(comic id: Int, imageURL: String) -> String? {
        guard let path = URLComponents(string: imageURL)?.percentEncodedPath, !path.hasSuffix("/"),
            let name = path.split(separator: "/").last, !name.hasPrefix("."), name.contains(".")
        else { return nil }
        return "\(id)-\(name)"
    }

    /// The kept bytes, or nil.
    public func image(comic id: Int, imageURL: String) -> Data? {
        Self.fileName(comic: id, imageURL: imageURL).flatMap {
            try? Data(contentsOf: directory.appendingPathComponent($0))
        }
    }

    public func contains(comic id: Int, imageURL: String) -> Bool {
        guard let name = Self.fileName(comic: id, imageURL: imageURL) else { return false }
        return FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path)
    }

    public func keep(_ data: Data, comic id: Int, imageURL: String) throws {
        guard let name = Self.fileName(comic: id, imageURL: imageURL) else { return }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(name).\(getpid()).partial")
        try data.write(to: temporary)
        guard rename(temporary.path, directory.appendingPathComponent(name).path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: reason])
        }
        forgetMissing(name: name)
    }

    // MARK: Images that could not be had

    /// How long a comic whose image could not be fetched is left alone: `show` offline would
    /// otherwise ask again, and wait, every time the comic is shown.
    public static let missingFor: TimeInterval = 3600

    /// A comic whose image could not be fetched lately, why, and until when it is left alone.
    public struct Missing: Sendable, Equatable {
        public var reason: String
        public var since: Date
        public var until: Date { since.addingTimeInterval(ImageCache.missingFor) }
    }

    /// One file per comic, `missing/327-exploits_of_a_mom.png`, holding the reason; its
    /// modification time is when the fetch failed. Beside the images, not among them: their
    /// names are what ``usage()`` counts.
    private var missingDirectory: URL { directory.appendingPathComponent("missing", isDirectory: true) }

    /// Remembers that the comic's image could not be fetched, and why, as of now.
    public func rememberMissing(comic id: Int, imageURL: String, reason: String) {
        guard let name = Self.fileName(comic: id, imageURL: imageURL) else { return }
        try? FileManager.default.createDirectory(at: missingDirectory, withIntermediateDirectories: true)
        try? Data(reason.utf8).write(to: missingDirectory.appendingPathComponent(name), options: .atomic)
    }

    /// Why the comic's image could not be fetched, when that was less than ``missingFor`` before
    /// `now`; else nil (never failed, or long enough ago to ask again).
    public func missing(comic id: Int, imageURL: String, now: Date = Date()) -> Missing? {
        guard let name = Self.fileName(comic: id, imageURL: imageURL) else { return nil }
        return missing(at: missingDirectory.appendingPathComponent(name), now: now)
    }

    /// How many comics are left alone now because their image could not be fetched.
    public func missingCount(now: Date = Date()) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: missingDirectory.path)) ?? []
        return names.count { missing(at: missingDirectory.appendingPathComponent($0), now: now) != nil }
    }

    private func missing(at file: URL, now: Date) -> Missing? {
        guard let since = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date,
            (-60..<Self.missingFor).contains(now.timeIntervalSince(since)), let data = try? Data(contentsOf: file)
        else { return nil }
        return Missing(reason: String(decoding: data.prefix(500), as: UTF8.self), since: since)
    }

    private func forgetMissing(name: String) {
        try? FileManager.default.removeItem(at: missingDirectory.appendingPathComponent(name))
    }

    public func remove(comic id: Int, imageURL: String) {
        guard let name = Self.fileName(comic: id, imageURL: imageURL) else { return }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }

    /// How many images are kept and their bytes in all.
    public func usage() -> (images: Int, bytes: Int) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.reduce(into: (0, 0)) { total, name in
            // Not a temporary file.
            guard let dash = name.firstIndex(of: "-"), Int(name[..<dash]) != nil else { return }
            let size =
                (try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size]
                    as? Int) ?? 0
            total = (total.0 + 1, total.1 + size)
        }
    }
}
