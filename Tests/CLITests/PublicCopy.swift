import Foundation
import _XKCDTestSupport

/// The built executables, the sentence model beside them and the fixture corpus, laid out again
/// in a directory that every user may read, for tests that run a command as another user.
///
/// The build may sit in a directory only its owner can enter (a checkout under root's home is
/// mode 0700), where the user `nobody` can neither run the executable nor read the fixtures.
/// Files are hard-linked where they can be (the same inode, readable by all, under a path all
/// may enter), copied where they cannot (another file system).
struct PublicCopy {
    /// `<directory>/bin/xkcd-search`.
    let executable: URL
    /// A copy of ``Fixtures/corpusURL``.
    let corpus: URL

    /// Lays out `<directory>/bin`, `<directory>/share/xkcd-search/model` and
    /// `<directory>/corpus`, and opens every directory on the way for everyone to enter.
    init(of built: URL, in directory: URL) throws {
        let bin = directory.appendingPathComponent("bin", isDirectory: true)
        try Self.makeReadableDirectory(bin)
        try Self.linkOrCopy(built, to: bin.appendingPathComponent("xkcd-search"))
        // Where the executables look for the model: <bin>/../share/xkcd-search/model.
        let model = built.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/xkcd-search/model", isDirectory: true)
        if FileManager.default.fileExists(atPath: model.path) {
            let share = directory.appendingPathComponent("share/xkcd-search", isDirectory: true)
            try Self.makeReadableDirectory(share)
            try Self.linkOrCopy(model.resolvingSymlinksInPath(), to: share.appendingPathComponent("model"))
        }
        corpus = directory.appendingPathComponent("corpus", isDirectory: true)
        try Self.linkOrCopy(Fixtures.corpusURL, to: corpus)
        executable = bin.appendingPathComponent("xkcd-search")
        // Every directory above the copy, up to the temporary directory, may be entered by all,
        // as the other user must pass through them (what else they allow stays as it was).
        var path = directory.deletingLastPathComponent()
        let top = FileManager.default.temporaryDirectory.standardizedFileURL.path
        while path.standardizedFileURL.path.hasPrefix(top + "/") {
            let attributes = try FileManager.default.attributesOfItem(atPath: path.path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o700
            try FileManager.default.setAttributes([.posixPermissions: mode | 0o055], ofItemAtPath: path.path)
            path.deleteLastPathComponent()
        }
    }

    private static func makeReadableDirectory(_ url: URL) throws {
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    }

    /// `cp -R --link`, else `cp -R`; then everything readable (and directories enterable) by all.
    private static func linkOrCopy(_ source: URL, to destination: URL) throws {
        if try runToolWaiting(["cp", "-R", "--link", source.path, destination.path]).status != 0 {
            try? FileManager.default.removeItem(at: destination)
            let copied = try runToolWaiting(["cp", "-R", source.path, destination.path])
            guard copied.status == 0 else { throw CopyFailed(description: "cp \(source.path): \(copied.output)") }
        }
        _ = try runToolWaiting(["chmod", "-R", "a+rX", destination.path])
    }

    struct CopyFailed: Error, CustomStringConvertible {
        var description: String
    }
}
