import Foundation
import Testing
import _XKCDTestSupport

/// `make install-files` and `make uninstall` into a `DESTDIR`, with the debug build the tests
/// run: what `make install` does after building the release.
@Suite("make install and make uninstall")
struct InstallTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every file `make install-files PREFIX=/usr` writes outside the model directory.
    static let installed = [
        "usr/bin/xkcd-search",
        "usr/share/man/man1/xkcd-search.1",
        "usr/share/bash-completion/completions/xkcd-search",
        "usr/share/zsh/site-functions/_xkcd-search",
        "usr/share/fish/vendor_completions.d/xkcd-search.fish",
        "usr/share/xkcd-search/linked-passages.tsv",
    ]

    /// Runs `make arguments…` in the package directory; its standard output and error together.
    static func make(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await runTool(["make", "--no-print-directory", "-C", packageRoot.path] + arguments)
    }

    /// ENVIRONMENT, FILES and EXIT STATUS as the README has them (scripts/man-page.awk), the
    /// global options once rather than under each command, examples one to a line.
    static func expectManPageSections(_ lines: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for heading in ["GLOBAL OPTIONS", "ENVIRONMENT", "FILES", "EXIT STATUS"] {
            #expect(lines.contains(heading), "no \(heading)", sourceLocation: sourceLocation)
        }
        for text in [
            "XKCD_SEARCH_DB", "XKCD_SEARCH_MODEL", "XKCD_SEARCH_PAGER, PAGER", "BROWSER", "NO_COLOR",
            "XDG_DATA_HOME, XDG_CACHE_HOME, XDG_STATE_HOME", "$XDG_DATA_HOME/xkcd-search/index.sqlite", "130",
        ] {
            #expect(lines.contains { $0.hasPrefix(text) }, "no \(text)", sourceLocation: sourceLocation)
        }
        #expect(
            lines.filter { $0 == "--db path" }.count == 1, "\(lines.filter { $0.hasPrefix("--db") })",
            sourceLocation: sourceLocation)
        #expect(lines.filter { $0 == "--no-pager" }.count == 1, sourceLocation: sourceLocation)
        #expect(
            lines.contains("xkcd-search index --rebuild") && lines.contains("xkcd-search fav add 327 sql security"),
            sourceLocation: sourceLocation)
        #expect(lines.count < 800, "\(lines.count) lines", sourceLocation: sourceLocation)
    }

    @Test(.timeLimit(.minutes(10)))
    func installsExecutablesManPageCompletionsAndModelThenUninstallsThem() async throws {
        let binDirectory = try BinaryRunner.locateExecutable().resolvingSymlinksInPath().deletingLastPathComponent()
        let built = binDirectory.appendingPathComponent("xkcd-search").path
        try #require(
            FileManager.default.isExecutableFile(atPath: built),
            "\(built) is not built (run `swift build --build-tests`)")
        try await withTemporaryDirectory { directory in
            let destination = directory.appendingPathComponent("root")
            let variables = ["DESTDIR=\(destination.path)", "PREFIX=/usr", "BIN_DIR=\(binDirectory.path)"]
            let install = try await Self.make(["install-files"] + variables)
            try #require(install.status == 0, "make install-files failed:\n\(install.output)")

            for path in Self.installed {
                let url = destination.appendingPathComponent(path)
                #expect(FileManager.default.fileExists(atPath: url.path), "\(path) was not installed")
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
                #expect(size > 0, "\(path) is empty")
            }
            // One executable, whose roles are itself started again: nothing else in bin.
            let bin = Self.files(under: destination.appendingPathComponent("usr/bin"))
            #expect(bin == ["xkcd-search"], "\(bin)")
            for name in ["xkcd-search"] {
                let path = destination.appendingPathComponent("usr/bin/\(name)").path
                #expect(FileManager.default.isExecutableFile(atPath: path))
                // Stripped: no symbol table and no debug info (about 30 MB of each executable).
                let sections = try await runTool(["readelf", "-S", "-W", path])
                #expect(sections.status == 0, "readelf -S \(name): \(sections.output)")
                #expect(
                    sections.output.contains(" .text "), "readelf -S \(name) listed no sections: \(sections.output)")
                let unstripped = [".debug_info", ".symtab"].filter { sections.output.contains(" \($0) ") }
                #expect(unstripped.isEmpty, "the installed \(name) is not stripped: it has \(unstripped)")
            }

            // The man page renders, with every subcommand in it.
            let page = destination.appendingPathComponent("usr/share/man/man1/xkcd-search.1").path
            let environment = ["env", "MANPAGER=cat", "MANWIDTH=100", "LC_ALL=C.UTF-8"]
            let man = try await runTool(environment + ["man", "-l", page])
            #expect(man.status == 0, "man -l failed:\n\(man.output)")
            let complaints = try await runTool([
                "sh", "-c", "\(environment.joined(separator: " ")) man -l '\(page)' 2>&1 >/dev/null",
            ])
            #expect(complaints.output.isEmpty, "man -l complained:\n\(complaints.output)")
            // A subcommand's entry starts at the list's indent, its description further in.
            let lines = man.output.split(separator: "\n").map(String.init)
            for command in ["index", "search", "show", "explain", "related", "fav", "stats", "about", "repl"] {
                #expect(lines.contains { $0.hasPrefix("     \(command)") }, "no \(command) in the man page")
            }
            Self.expectManPageSections(lines.map { $0.trimmingCharacters(in: .whitespaces) })

            // Completion scripts: each defines its completion for xkcd-search, and is valid in
            // its shell where that shell is installed.
            let share = destination.appendingPathComponent("usr/share")
            let bash = try String(
                contentsOf: share.appendingPathComponent("bash-completion/completions/xkcd-search"), encoding: .utf8)
            #expect(bash.contains("complete ") && bash.contains("_xkcd-search"))
            let syntax = try await runTool([
                "bash", "-n", share.appendingPathComponent("bash-completion/completions/xkcd-search").path,
            ])
            #expect(syntax.status == 0, "bash -n: \(syntax.output)")
            let zsh = try String(
                contentsOf: share.appendingPathComponent("zsh/site-functions/_xkcd-search"), encoding: .utf8)
            #expect(zsh.hasPrefix("#compdef xkcd-search"))
            let fish = try String(
                contentsOf: share.appendingPathComponent("fish/vendor_completions.d/xkcd-search.fish"), encoding: .utf8)
            #expect(
                fish.contains("complete -c 'xkcd-search'") || fish.contains("complete -c xkcd-search"),
                "\(fish.prefix(400))")

            // The model, with the sums `make model` wrote, all of them matching.
            let model = share.appendingPathComponent("xkcd-search/model")
            for file in ["model.safetensors", "vocab.txt", "config.json", "LICENSE", "SHA256SUMS"] {
                #expect(
                    FileManager.default.fileExists(atPath: model.appendingPathComponent(file).path), "no model/\(file)")
            }
            let sums = try await runTool(["sh", "-c", "cd '\(model.path)' && sha256sum --check --quiet SHA256SUMS"])
            #expect(sums.status == 0, "the installed model does not match its sums: \(sums.output)")

            // The installed executable runs and finds the installed model: XKCD_SEARCH_MODEL is
            // cleared and the sandbox's XDG_DATA_HOME holds none, so only <bin>/../share is left.
            let installedBinary = destination.appendingPathComponent("usr/bin/xkcd-search")
            let cli = try BinaryRunner(sandbox: directory, executable: installedBinary)
            let version = try await cli.run(["--version"])
            #expect(version.status == 0 && !version.stdout.isEmpty, "\(version)")
            let db = try await FixtureIndex.copy(into: directory)
            let stats = try await cli.run(["stats", "--db", db], environment: ["XKCD_SEARCH_MODEL": ""])
            #expect(stats.status == 0, "\(stats)")
            let meaning = stats.stdoutLines.first { $0.contains("by meaning:") }
            #expect(meaning?.contains("by meaning:    on (") == true, "\(stats)")

            // The installed server finds the web page's templates at <bin>/../share/xkcd-search/web.
            for file in ["templates/layout.mustache", "static/site.css", "static/site.js"] {
                #expect(
                    FileManager.default.fileExists(
                        atPath: share.appendingPathComponent("xkcd-search/web/\(file)").path), "no web/\(file)")
            }
            let server = try cli.launch(["serve", "--port", "0", "--db", db])
            try await waitUntil("serve printed its URL", stopIf: { !server.isRunning }) {
                server.stdoutSoFar.contains("\n")
            }
            let served = try #require(
                URL(string: String(server.stdoutSoFar.split(separator: "\n").first?.dropFirst("serving ".count) ?? "")))
            let home = try await ServeCommandTests.get(served)
            server.kill(SIGTERM)
            _ = await server.wait()
            #expect(home.status == 200 && home.body.hasPrefix("<!doctype html>"), "\(home)")

            // make uninstall leaves no file of its own behind.
            let uninstall = try await Self.make(["uninstall"] + variables)
            try #require(uninstall.status == 0, "make uninstall failed:\n\(uninstall.output)")
            let left = Self.files(under: destination)
            #expect(left.isEmpty, "make uninstall left \(left)")
            #expect(!FileManager.default.fileExists(atPath: share.appendingPathComponent("xkcd-search").path))
        }
    }

    /// `make uninstall` removes what `make install-files` put there and nothing else: files of
    /// the person's own beside the installed ones, and in the model's directory, stay.
    @Test(.timeLimit(.minutes(10)))
    func uninstallRemovesOnlyWhatInstallPutThere() async throws {
        let binDirectory = try BinaryRunner.locateExecutable().resolvingSymlinksInPath().deletingLastPathComponent()
        try await withTemporaryDirectory { directory in
            let destination = directory.appendingPathComponent("root")
            let variables = ["DESTDIR=\(destination.path)", "PREFIX=/usr", "BIN_DIR=\(binDirectory.path)"]
            let install = try await Self.make(["install-files"] + variables)
            try #require(install.status == 0, "make install-files failed:\n\(install.output)")
            let own = [
                "usr/bin/xkcd-search-notes", "usr/share/man/man1/other.1", "usr/share/xkcd-search/model/notes.txt",
            ]
            for path in own {
                try Data("mine\n".utf8).write(to: destination.appendingPathComponent(path))
            }

            let uninstall = try await Self.make(["uninstall"] + variables)
            try #require(uninstall.status == 0, "make uninstall failed:\n\(uninstall.output)")
            #expect(Self.files(under: destination) == own.sorted())
        }
    }

    /// The paths of the files under `root` (not directories), relative to it, sorted.
    static func files(under root: URL) -> [String] {
        let items = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        return items.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.sorted()
    }
}
