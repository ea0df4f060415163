import Foundation
import Testing
import XKCDModel
import _XKCDTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `identify` through the binary, with the real Tesseract on real comic images (the fixtures'
/// copies of imgs.xkcd.com's files, and copies made smaller, recompressed, cropped and turned:
/// Fixtures/images/SOURCES.md), on the fixture index. docs/identify.md has the measurements on the
/// whole development set.
@Suite("identify: which xkcd is this?")
struct IdentifyCommandTests {
    static let images = Fixtures.imagesURL

    @Test(arguments: [
        ("exploits_of_a_mom.png", 327), ("dependency.png", 2347), ("password_strength.png", 936),
        ("identify/exploits_of_a_mom-half.jpg", 327), ("identify/dependency-top-rotated.png", 2347),
        // An animation whose first frame is blank: its words are read in a later one.
        ("identify/exploits_of_a_mom-words-later.gif", 327),
    ])
    func theComicIsFoundFirst(_ file: String, _ comic: Int) async throws {
        try await withBrowseSandbox { sandbox in
            let found = try await sandbox.run("identify", Self.images.appendingPathComponent(file).path, "--json")
            #expect(found.status == 0, "\(found)")
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [String: Any], "\(found)")
            let results = try #require(document["results"] as? [[String: Any]])
            #expect(results.first?["num"] as? Int == comic, "\(found.stdout)")
            let reasons = try #require(results.first?["reasons"] as? [String: Any])
            #expect((reasons["words"] as? [String])?.isEmpty == false)
            #expect(!(document["text"] as? String ?? "").isEmpty)
            // Tesseract's and the image libraries' own messages stay off the terminal.
            #expect(found.stderr.isEmpty, "\(found.stderr)")
        }
    }

    @Test func standardInputAndTextOutput() async throws {
        try await withBrowseSandbox { sandbox in
            let png = try Data(contentsOf: Self.images.appendingPathComponent("dependency.png"))
            let found = try await sandbox.cli.run(["identify", "-", "--limit", "1", "--db", sandbox.db], stdin: png)
            #expect(found.status == 0, "\(found)")
            #expect(found.stdoutLines.first?.hasPrefix("read: ") == true, "\(found)")
            #expect(found.stdoutLines.count == 2 && found.stdoutLines[1].hasPrefix("#2347  Dependency"), "\(found)")
        }
    }

    /// A comic without words: nothing is read that fits, and that is said (status 1).
    @Test func aComicWithoutWordsFindsNothingAndSaysSo() async throws {
        try await withBrowseSandbox { sandbox in
            let found = try await sandbox.run("identify", Self.images.appendingPathComponent("traffic_lights.gif").path)
            #expect(found.status == 1, "\(found)")
            #expect(found.stdout.contains("no comic fits the words read or the picture"), "\(found)")
        }
    }

    /// `POST /api/identify` answers what `identify --json` prints for the same image; a body not
    /// sent as an image is 415, one over 10 MB 413, bytes that are no image 400: each a JSON error.
    @Test func theAPIAnswersAsTheCommandLineDoes() async throws {
        try await withBrowseSandbox { sandbox in
            let file = Self.images.appendingPathComponent("identify/exploits_of_a_mom-half.jpg")
            let printed = try await sandbox.run("identify", file.path, "--json")
            #expect(printed.status == 0, "\(printed)")
            let (child, base) = try await ServeCommandTests.startServer(sandbox)
            defer { child.kill(SIGTERM) }
            func post(_ body: Data, type: String, query: String = "") async throws -> (status: Int, body: String) {
                var request = URLRequest(url: base.appendingPathComponent("api/identify" + query))
                request.httpMethod = "POST"
                request.setValue(type, forHTTPHeaderField: "Content-Type")
                let (data, response) = try await URLSession.shared.upload(for: request, from: body)
                return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
            }
            let answered = try await post(try Data(contentsOf: file), type: "image/jpeg")
            #expect(answered.status == 200)
            #expect(answered.body + "\n" == printed.stdout)
            let text = try await post(Data("hello".utf8), type: "text/plain")
            #expect(text.status == 415 && text.body.contains(#""code":"not-an-image""#), "\(text)")
            let garbage = try await post(Data(repeating: 7, count: 5000), type: "application/octet-stream")
            #expect(garbage.status == 400 && garbage.body.contains(#""code":"bad-image""#), "\(garbage)")
            let huge = try await post(Data(count: (10 << 20) + 1), type: "image/png")
            #expect(huge.status == 413 && huge.body.contains(#""code":"image-too-large""#), "\(huge)")
        }
    }

    /// A comic without words is found by its picture once `index --images` kept and hashed the
    /// images: the file itself, a smaller JPEG copy of it, and a chat window's screenshot with the
    /// comic in it (one of the screenshot's parts).
    @Test func aCopyOfAComicsPictureIsFoundByIt() async throws {
        try await ImageCommandTests().withImageSandbox { images in
            let indexed = try await images.sandbox.cli.run([
                "index", "--db", images.sandbox.db, "--mirror", Fixtures.corpusURL.path, "--images", "--image-url",
                images.base,
            ])
            #expect(indexed.status == 0, "\(indexed)")
            for file in ["traffic_lights.gif", "identify/traffic_lights-small.jpg", "identify/traffic_lights-chat.png"]
            {
                let found = try await images.sandbox.run(
                    "identify", Self.images.appendingPathComponent(file).path, "--json")
                #expect(found.status == 0, "\(file): \(found)")
                let document = try #require(
                    try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [String: Any], "\(found)")
                let first = try #require((document["results"] as? [[String: Any]])?.first, "\(found)")
                #expect(first["num"] as? Int == 1116, "\(file): \(found.stdout)")
                #expect((first["reasons"] as? [String: Any])?["image"] as? Bool == true, "\(found.stdout)")
            }
        }
    }

    /// Each hostile file: one line saying what is wrong, status 2, nothing written.
    @Test func hostileFilesAreRefusedInOneLine() async throws {
        try await withBrowseSandbox { sandbox in
            let directory = sandbox.directory
            func file(_ name: String, _ data: Data) throws -> String {
                let url = directory.appendingPathComponent(name)
                try data.write(to: url)
                return url.path
            }
            let png = try Data(contentsOf: Self.images.appendingPathComponent("exploits_of_a_mom.png"))
            var random = SplitMix64(seed: 36)
            let cases: [(path: String, message: String)] = [
                (try file("notes.txt", Data("not an image at all\n".utf8)), "is not an image that can be read"),
                (try file("empty.png", Data()), "the image is empty"),
                (try file("truncated.png", png.prefix(3000)), "is not an image that can be read"),
                (
                    try file("random.jpg", Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &random) })),
                    "is not an image that can be read"
                ),
                (
                    Self.images.appendingPathComponent("oversized.png").path,
                    "the image is 10000x10000 pixels, larger than any comic"
                ),
                (directory.appendingPathComponent("missing.png").path, "no such file"),
                (
                    try file("frames.gif", Fixtures.animatedGIF(frames: 10_000)),
                    "the animation has more than 1000 frames"
                ),
            ]
            let big = directory.appendingPathComponent("big.png")
            #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
            let handle = try FileHandle(forWritingTo: big)
            try handle.truncate(atOffset: 500 << 20)  // 500 MB, sparse
            try handle.close()
            for (path, message) in cases + [(big.path, "the image is over 10 MB")] {
                let output = try await sandbox.run("identify", path)
                #expect(output.status == 2, "\(path): \(output)")
                expectFailure(output, message)
                #expect(!output.stderr.contains("libpng") && !output.stderr.contains("Tesseract"), "\(output)")
            }
            let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            // Standard input that never ends is read up to the limit, then refused.
            let endless = try await runTool([
                "sh", "-c", #"cat /dev/zero | "$0" identify --db "$1" -"#, sandbox.cli.executable.path,
                sandbox.db,
            ])
            #expect(endless.status == 2 && endless.output.contains("the image is over 10 MB"), "\(endless)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
        }
    }
}
