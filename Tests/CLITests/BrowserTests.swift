import Foundation
import Testing
import _XKCDTestSupport

/// The web page of `xkcd-search serve` in a real, headless Chromium driven by Selenium
/// (Tests/Browser/web_page.py): the real server on the fixture index, its images fetched from
/// the fixture server. Screenshots and figures go to the artifacts
/// directory: $XKCD_SEARCH_ARTIFACTS, or .build/test-artifacts/web.
@Suite("the web page in a real browser")
struct BrowserTests {
    /// Debian's, or others named by the variables web_page.py reads too.
    static let chromium = ProcessInfo.processInfo.environment["XKCD_SEARCH_CHROMIUM"] ?? "/usr/bin/chromium"
    static let chromedriver = ProcessInfo.processInfo.environment["XKCD_SEARCH_CHROMEDRIVER"] ?? "/usr/bin/chromedriver"

    /// Why the browser tests cannot run here, or nil when they can.
    static let missing: String? = {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: chromium), files.isExecutableFile(atPath: chromedriver) else {
            return "Chromium is not installed (Debian's chromium and chromium-driver: make test-deps)"
        }
        guard let python = TestPython.executable,
            (try? runToolWaiting([python.path, "-c", "import selenium"]))?.status == 0
        else { return "Selenium is not installed in the tests' Python (make test-venv)" }
        return nil
    }()

    static var artifacts: URL {
        if let path = ProcessInfo.processInfo.environment["XKCD_SEARCH_ARTIFACTS"], !path.isEmpty {
            return URL(fileURLWithPath: path).appendingPathComponent("web")
        }
        return packageDirectory.appendingPathComponent(".build/test-artifacts/web")
    }

    static let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func searchReadBrowseAndFavouriteWithAndWithoutJavaScript() async throws {
        try await withBrowseSandbox { sandbox in
            // The fixture images, and real PNGs under the names of the other comics the browser
            // shows (the latest on /, and the one after #327), so that every image it asks for is
            // fetched by serve from the fixture server on first sight.
            let imageFiles = sandbox.directory.appendingPathComponent("fixture-images")
            try FileManager.default.copyItem(at: Fixtures.imagesURL, to: imageFiles)
            for name in ["trick_play.png", "house_of_pancakes.png"] {
                try FileManager.default.copyItem(
                    at: Fixtures.imagesURL.appendingPathComponent("dependency.png"),
                    to: imageFiles.appendingPathComponent(name))
            }
            let images = FixtureServer(images: imageFiles)
            let base = try await images.start()
            let (server, url) = try await ServeCommandTests.startServer(sandbox, ["--image-url", base.absoluteString])
            let artifacts = Self.artifacts
            try? FileManager.default.removeItem(at: artifacts)
            try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
            // What the CLI answers for the query the page's form sends without JavaScript.
            let formQuery = try await sandbox.run(
                "search", "--json", "--limit", "50", "exploits OR dependency -mom year:2007..2020")
            let formAnswer = try JSONSerialization.jsonObject(with: Data(formQuery.stdout.utf8)) as? [String: Any]
            let formNumbers = (formAnswer?["results"] as? [[String: Any]] ?? []).compactMap { $0["num"] as? Int }
            #expect(formNumbers.count >= 2, "\(formQuery)")
            let script = Self.packageDirectory.appendingPathComponent("Tests/Browser/web_page.py")
            let python = try #require(TestPython.executable)
            let run = try await runTool([
                python.path, script.path, url.absoluteString, artifacts.path,
                formNumbers.map(String.init).joined(separator: ","),
            ])
            server.kill(SIGTERM)
            let served = await server.wait()
            await images.stop()
            // Seen on many pages, fetched once: then kept.
            #expect(images.requestCount(forPath: FixtureServer.imagePath("exploits_of_a_mom.png")) == 1)
            #expect(run.status == 0, "\(run.output)\n\(served.stderr.suffix(3000))")
            #expect(served.status == 0, "\(served)")
            // The server's own errors: none of the pages or assets failed.
            #expect(!served.stderr.contains(" 500 "), "\(served.stderr)")

            let figures =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: artifacts.appendingPathComponent("figures.json"))) as? [String: Any]
            print("web page figures: \(figures ?? [:])")

            // What the browser did is in the index: `fav list` finds both favourites.
            let list = try await sandbox.run("fav", "list", "--json")
            let entries = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(entries.compactMap { $0["num"] as? Int }.sorted() == [327, 936], "\(list)")
            #expect(entries.first { $0["num"] as? Int == 936 }?["tags"] as? [String] == ["security"], "\(list)")
            for name in ["home", "search", "comic"] {
                for size in ["wide", "phone"] {
                    for colours in ["light", "dark"] {
                        let shot = artifacts.appendingPathComponent("\(name)-\(size)-\(colours).png")
                        #expect(FileManager.default.fileExists(atPath: shot.path), "\(shot.lastPathComponent)")
                    }
                }
            }
        }
    }
}
