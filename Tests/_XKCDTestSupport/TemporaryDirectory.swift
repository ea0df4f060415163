import Foundation

/// A fresh empty directory under the system temporary directory; the caller removes it.
public func makeTemporaryDirectory(_ label: String = "xkcd-tests") throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
