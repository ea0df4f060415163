import Foundation
import Testing
import _XKCDTestSupport

/// One executable in four roles (argv[0]), with libcurl, libxml2 and libchafa opened with dlopen
/// by the role that first uses them (Sources/CSharedLibrary): a search process loads none of them.
@Suite("one executable: roles by argv[0], libraries opened on use")
struct OneExecutableTests {
    static let openedOnUse = ["libcurl", "libxml2", "libchafa", "libglib", "libFoundationNetworking"]

    /// The libraries the dynamic loader names as it loads them (`LD_DEBUG=files`), also in children.
    static func loaded(_ output: BinaryRunner.Output) -> Set<String> {
        Set(openedOnUse.filter { output.stderr.contains("file=\($0)") })
    }

    @Test func theExecutableNeedsNoneOfTheLibrariesItOpensOnUse() async throws {
        let cli = try BinaryRunner(sandbox: FileManager.default.temporaryDirectory)
        let dynamic = try runToolWaiting(["readelf", "-d", "-W", cli.executable.path])
        let needed = dynamic.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("[libc.so.6]") }, "readelf lists the needed libraries: \(dynamic.output)")
        for library in Self.openedOnUse {
            #expect(!needed.contains { $0.contains("[\(library)") }, "\(library) is needed: \(needed)")
        }
        // Nor through another library (ldd follows them all).
        let ldd = try runToolWaiting(["ldd", cli.executable.path]).output
        for library in Self.openedOnUse {
            #expect(!ldd.contains(library), "\(library) in ldd's list: \(ldd)")
        }
    }

    @Test func aSearchLoadsNoneAndEachRoleOpensWhatItUses() async throws {
        try await withBrowseSandbox { sandbox in
            let trace = ["LD_DEBUG": "files"]
            let search = try await sandbox.run("search", "bobby", "tables", environment: trace)
            #expect(search.status == 0 && search.stdout.hasPrefix("#327"), "\(search.stdout)")
            #expect(search.stderr.contains("file=libc.so.6"), "LD_DEBUG traced the loading")
            #expect(Self.loaded(search).isEmpty, "a search loaded \(Self.loaded(search))")

            // `show` with an image: the indexer's role fetches it (libcurl), the drawer's draws it
            // (libchafa, which brings GLib).
            let server = FixtureServer()
            let base = try await server.start()
            let show = try await sandbox.run(
                "show", "327", "--image", "always", "--image-format", "symbols", "--image-url", base.absoluteString,
                environment: trace)
            await server.stop()
            #expect(show.status == 0 && show.stdout.hasPrefix("#327"), "\(show.stdout)")
            #expect(Self.loaded(show) == ["libcurl", "libchafa", "libglib"], "\(Self.loaded(show))")

            // Indexing from a mirror parses pages (libxml2) and fetches nothing.
            let db = sandbox.directory.appendingPathComponent("mirror.sqlite").path
            let index = try await sandbox.cli.run(
                ["index", "--db", db, "--mirror", Fixtures.corpusURL.path], environment: trace)
            #expect(index.status == 0, "\(index.stdout)")
            #expect(Self.loaded(index) == ["libxml2"], "\(Self.loaded(index))")
        }
    }

    /// XKCD_SEARCH_LIBCURL, XKCD_SEARCH_LIBXML2 and XKCD_SEARCH_LIBCHAFA name another file to open:
    /// a missing one stands for a library that is not installed.
    @Test func withoutALibraryTheRoleSaysWhichPackageInOneLine() async throws {
        try await withBrowseSandbox { sandbox in
            let db = sandbox.directory.appendingPathComponent("new.sqlite").path
            let noXML = try await sandbox.cli.run(
                ["index", "--db", db, "--mirror", Fixtures.corpusURL.path],
                environment: ["XKCD_SEARCH_LIBXML2": "/nonexistent/libxml2.so.2"])
            #expect(noXML.status == 1, "\(noXML)")
            #expect(
                noXML.stderrLines == [
                    "Error: reading explanations needs libxml2 (Debian's libxml2, which `make deps` installs): "
                        + "libxml2.so.2 could not be loaded"
                ], "\(noXML)")
            #expect(!FileManager.default.fileExists(atPath: db), "nothing was created")

            let server = FixtureServer()
            let base = try await server.start().absoluteString
            let noCurl = try await sandbox.cli.run(
                ["index", "--db", db, "--xkcd-url", base, "--explain-url", base],
                environment: ["XKCD_SEARCH_LIBCURL": "/nonexistent/libcurl.so.4"])
            #expect(noCurl.status != 0, "\(noCurl)")
            #expect(noCurl.stderrLines.count == 1, "\(noCurl)")
            #expect(
                noCurl.stderr.contains(
                    "fetching needs libcurl (Debian's libcurl4, which `make deps` installs): libcurl.so.4 could not be loaded"
                ),
                "\(noCurl)")
            #expect(!noCurl.stderr.contains("/nonexistent"), "no path: \(noCurl)")

            // The image is fetched and kept; drawing it is what fails, and the text still shows.
            let show = try await sandbox.run(
                "show", "327", "--image", "always", "--image-format", "symbols", "--image-url", base,
                environment: ["XKCD_SEARCH_LIBCHAFA": "/nonexistent/libchafa.so.0"])
            await server.stop()
            #expect(show.status == 0 && show.stdout.hasPrefix("#327"), "\(show)")
            #expect(
                show.stderrLines == [
                    "no image: drawing images needs libchafa (Debian's libchafa0, which `make deps` installs): "
                        + "libchafa.so.0 could not be loaded"
                ], "\(show)")
            let kept = sandbox.directory.appendingPathComponent("cache/xkcd-search/images")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: kept.path).contains { $0 != "missing" },
                "the fetched image is kept: \(kept.path)")
        }
    }

    /// `serve` replaces its process with the executable in the server's role: the same process
    /// id (a signal sent to it reaches the server), argv[0] naming the role.
    @Test func serveRunsAsTheServerRoleInTheSameProcess() async throws {
        try await withBrowseSandbox { sandbox in
            let server = try sandbox.cli.launch(["serve", "--port", "0", "--db", sandbox.db])
            try await waitUntil("serve printed its URL", stopIf: { !server.isRunning }) {
                server.stdoutSoFar.contains("\n")
            }
            let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(server.pid)/cmdline"))
            let argv = commandLine.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            server.kill(SIGTERM)
            #expect(await server.wait().status == 0)
            #expect(argv.first == "xkcd-search-serve", "\(argv)")
        }
    }
}
