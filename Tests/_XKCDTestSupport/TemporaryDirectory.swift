import Foundation

/// A fresh empty directory under this test process's own temporary directory, which is removed
/// when the process exits (``TestScratch``): a test that fails, or copies a fixture index for
/// each case, leaves nothing behind in the system's temporary directory. The caller may remove
/// it sooner.
public func makeTemporaryDirectory(_ label: String = "xkcd-tests") throws -> URL {
    guard let root = TestScratch.root else { throw CocoaError(.fileWriteUnknown) }
    let url = root.appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// One directory a test process, `xkcd-tests-PID-…` under the system temporary directory, with
/// everything the tests make in it; removed at exit, read-only parts included (the read-only
/// media tests make some).
public enum TestScratch {
    /// The directory, made on first use, with its removal registered for the process's exit;
    /// nil when the system's temporary directory cannot be written.
    public static let root: URL? = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("xkcd-tests-\(getpid())-\(UUID().uuidString)", isDirectory: true)
        guard (try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)) != nil else {
            return nil
        }
        atexit { TestScratch.remove() }
        return url
    }()

    /// Removes the directory: each directory in it made writable first, so that its files can go.
    static func remove() {
        guard let url = root else { return }
        let manager = FileManager.default
        if let walk = manager.enumerator(at: url, includingPropertiesForKeys: [.isDirectoryKey]) {
            for case let item as URL in walk
            where (try? item.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true {
                try? manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: item.path)
            }
        }
        try? manager.removeItem(at: url)
    }
}
