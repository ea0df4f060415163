import Foundation

/// Real pages and API responses copied from `../shared/corpus/` (see `Fixtures/corpus/SOURCES.md`).
public enum Fixtures: Sendable {
    /// A directory laid out as `../shared/corpus/` is: `xkcd/N/info.0.json`, `explainxkcd/api/N.json`.
    public static var corpusURL: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/corpus", isDirectory: true)
    }

    /// Numbers of the comics whose xkcd JSON is in the fixtures.
    public static var comicIDs: [Int] {
        numbers(in: corpusURL.appendingPathComponent("xkcd"), suffix: nil)
    }

    /// Numbers of the comics whose explain xkcd API response is in the fixtures.
    public static var explainedIDs: [Int] {
        numbers(in: corpusURL.appendingPathComponent("explainxkcd/api"), suffix: ".json")
    }

    /// An xkcd JSON response with its number changed: a server answering for another comic.
    public static func renumbered(_ json: Data, _ number: Int) -> Data {
        var object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
        object["num"] = number
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    public static func comicJSON(_ id: Int) throws -> Data {
        try Data(contentsOf: corpusURL.appendingPathComponent("xkcd/\(id)/info.0.json"))
    }

    public static func explainAPIResponse(_ id: Int) throws -> Data {
        try Data(contentsOf: corpusURL.appendingPathComponent("explainxkcd/api/\(id).json"))
    }

    /// The `parse.text` HTML of an explain xkcd API response.
    public static func explainHTML(_ id: Int) throws -> String {
        struct Response: Decodable {
            struct Parse: Decodable { var text: String }
            var parse: Parse
        }
        return try JSONDecoder().decode(Response.self, from: explainAPIResponse(id)).parse.text
    }

    /// A full `index.php` page: `2207.html` (live wiki, MediaWiki 1.30), `2207.mw139.html`, `1116.html`.
    public static func wikiPage(_ name: String) throws -> String {
        let url = corpusURL.appendingPathComponent("explainxkcd/wiki/index.php/\(name)")
        return String(decoding: try Data(contentsOf: url), as: UTF8.self)
    }

    /// The full corpus in `../shared/corpus`, when this checkout sits beside it; nil otherwise.
    public static var sharedCorpusURL: URL? {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = dir.appendingPathComponent("shared/corpus/xkcd/info.0.json")
            if FileManager.default.fileExists(atPath: candidate.path) {
                return candidate.deletingLastPathComponent().deletingLastPathComponent()
            }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    private static func numbers(in directory: URL, suffix: String?) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.compactMap { name in
            if let suffix {
                guard name.hasSuffix(suffix) else { return nil }
                return Int(name.dropLast(suffix.count))
            }
            return Int(name)
        }.sorted()
    }
}

extension Fixtures {
    /// Token ids and embeddings that sentence-transformers computed for fixed texts
    /// (`scripts/reference-embeddings.py`).
    public static var embeddingReferenceURL: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/embedding-reference.json")
    }
}

extension Fixtures {
    /// Real comic images under their imgs.xkcd.com names, and two made for failures
    /// (`Fixtures/images/SOURCES.md`).
    public static var imagesURL: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/images", isDirectory: true)
    }

    public static func image(_ name: String) throws -> Data {
        try Data(contentsOf: imagesURL.appendingPathComponent(name))
    }
}

extension Fixtures {
    /// A GIF of `frames` frames of one black pixel, written byte by byte: a screen of 1 x 1, two
    /// colours, and each frame's LZW codes clear (4), colour 0, end (5) at three bits each.
    public static func animatedGIF(frames: Int) -> Data {
        var bytes = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        for _ in 0..<frames {
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0]
        }
        return Data(bytes + [0x3B])
    }
}
