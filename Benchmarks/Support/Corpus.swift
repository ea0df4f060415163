import Foundation

/// The `Benchmarks` folder of the checkout.
public let benchmarksDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

/// The offline mirror: `../../shared/corpus` next to the checkout, else the repository's
/// extracted snapshot (`make snapshot-dir`).
public func corpusDirectory() throws -> URL {
    let candidates = [
        benchmarksDirectory.appendingPathComponent("../../shared/corpus").standardizedFileURL,
        benchmarksDirectory.appendingPathComponent("../.build/snapshot").standardizedFileURL,
    ]
    for candidate in candidates
    where FileManager.default.fileExists(atPath: candidate.appendingPathComponent("xkcd/info.0.json").path) {
        return candidate
    }
    throw CorpusMissing(searched: candidates.map(\.path))
}

public struct CorpusMissing: Error, CustomStringConvertible {
    public var searched: [String]
    public var description: String {
        "no corpus mirror found (looked in \(searched.joined(separator: ", "))); run `make snapshot-dir` first"
    }
}
