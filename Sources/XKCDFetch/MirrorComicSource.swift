import Foundation

/// Reads a directory laid out like the offline corpus, without any network:
///
/// ```
/// xkcd/info.0.json            the latest comic
/// xkcd/327/info.0.json        comic 327
/// explainxkcd/api/327.json    the explain xkcd API response for 327
/// ```
///
/// A missing comic file means "no such comic" and a missing explanation file "not written yet".
/// `fetchedAt` is the file's modification time.
public struct MirrorComicSource: ComicSource {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public func latestComic() async throws -> RawResponse {
        let url = directory.appendingPathComponent("xkcd/info.0.json")
        guard let response = try read(url) else {
            throw FetchError.unreadableFile(path: url.path, reason: "no such file")
        }
        return response
    }

    public func comic(_ id: Int) async throws -> RawResponse? {
        try read(directory.appendingPathComponent("xkcd/\(id)/info.0.json"))
    }

    /// A file holding the wiki's `missingtitle` error object also counts as "not written yet".
    public func explanation(_ id: Int) async throws -> ExplainLookup {
        let url = directory.appendingPathComponent("explainxkcd/api/\(id).json")
        guard let response = try read(url) else { return .notWrittenYet }
        // Only an answer that does not start with the page object needs a full decode.
        if !response.data.starts(with: Data(#"{"parse":"#.utf8)),
            try ExplainAPI.decode(response.data, source: url.path) == nil
        {
            return .notWrittenYet
        }
        return .page(response)
    }

    private func read(_ url: URL) throws -> RawResponse? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            let data = try Data(contentsOf: url)
            let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
            return RawResponse(data: data, fetchedAt: modified ?? Date())
        } catch {
            throw FetchError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
    }
}
