import Foundation
import Testing
import _XKCDTestSupport

/// Every `xkcd-search …` example of README.md, run as a user types it against the index of the
/// shipped snapshot (`.build/snapshot`, which `make snapshot-dir` unpacks and `make test` runs).
@Suite("the README's examples", .timeLimit(.minutes(20)))
struct ReadmeExampleTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let snapshot = packageRoot.appendingPathComponent(".build/snapshot")

    /// Examples left out, each with why.
    static let notRun: [String: String] = [
        // Fetches every image of 3,282 comics: the snapshot has none.
        "xkcd-search index --images": "downloads 0.3 GB",
        "xkcd-search help <command>": "a placeholder",
        "xkcd-search serve": "serves until stopped (Tests/XKCDServerTests run it)",
        "xkcd-search --db /tmp/idx show 327": "a path of the reader's",
        "xkcd-search index --linked-passages /usr/local/share/xkcd-search/linked-passages.tsv":
            "a path of an installed copy (RelevantCommandTests runs the option)",
        "xkcd-search search --oneline --limit 100 physics | fzf | cut -f1 | xargs xkcd-search show":
            "needs fzf and a person",
    ]

    /// The examples in the order of the README: the lines of the `sh` blocks that start with
    /// `xkcd-search` or pipe into it, without their comments, and every inline code span that
    /// starts with `xkcd-search ` (a span may be broken across two lines).
    static func examples(in readme: String) -> [String] {
        var examples: [String] = []
        var inShellBlock = false
        var prose = ""
        func takeSpans() {
            var pieces = prose.components(separatedBy: "`")
            // An unclosed span goes on on the next line.
            let unclosed = pieces.count % 2 == 0 ? pieces.removeLast() : nil
            let spans = pieces.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            examples += spans.filter { $0.hasPrefix("xkcd-search ") }
            prose = unclosed.map { "`" + $0 } ?? ""
        }
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inShellBlock = line == "```sh"
            } else if inShellBlock {
                let command = String(line.split(separator: /\s+#\s/, maxSplits: 1).first ?? "")
                    .trimmingCharacters(in: .whitespaces)
                if command.hasPrefix("xkcd-search ") || command.contains("| xkcd-search ") { examples.append(command) }
            } else {
                prose += (prose.isEmpty ? "" : " ") + line
                takeSpans()
            }
        }
        return examples.filter { notRun[$0] == nil }
    }

    /// Runs `command` through the shell in `directory`, with the binary under test first in PATH.
    static func run(_ command: String, in directory: URL, cli: BinaryRunner, environment: [String: String])
        async throws -> BinaryRunner.Output
    {
        let path = cli.executable.deletingLastPathComponent().path + ":" + (cli.environment["PATH"] ?? "/usr/bin:/bin")
        return try await cli.run(
            [], environment: environment,
            wrapper: ["PATH=\(path)", "/bin/sh", "-c", "cd \"$1\" && \(command)", "sh", directory.path])
    }

    @Test func everyExampleRuns() async throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        try #require(
            FileManager.default.fileExists(atPath: Self.snapshot.appendingPathComponent("xkcd/info.0.json").path),
            "no snapshot in \(Self.snapshot.path): run `make snapshot-dir`")
        let examples = Self.examples(in: readme)
        #expect(examples.count >= 30, "\(examples)")
        try await withTemporaryDirectory { directory in
            // The examples' relative paths (`.build/snapshot`) are the source tree's.
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(".build"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: directory.appendingPathComponent(".build/snapshot"), withDestinationURL: Self.snapshot)
            let cli = try BinaryRunner(sandbox: directory, embeds: true)
            // Whatever needs the network gets the snapshot from the fixture server.
            let server = FixtureServer(corpus: Self.snapshot)
            let base = try await server.start().absoluteString
            defer { Task { await server.stop() } }
            let environment = [
                "XKCD_SEARCH_DB": directory.appendingPathComponent("index.sqlite").path, "BROWSER": "true",
            ]
            for folder in [".zfunc", ".config/fish/completions"] {
                try FileManager.default.createDirectory(
                    at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            // The index the other examples need comes first, with the vectors `make demo` passes.
            let build = try await Self.run(
                "xkcd-search index --mirror .build/snapshot --vectors .build/snapshot/vectors.sqlite", in: directory,
                cli: cli, environment: environment)
            try #require(build.status == 0, "\(build)")
            // A reader with a favourite tagged physics, as `random --tag physics` presumes.
            let favourite = try await Self.run(
                "xkcd-search fav add 1 physics", in: directory, cli: cli, environment: environment)
            try #require(favourite.status == 0, "\(favourite)")
            // The JSON sample is what its command prints (wrapped for the page at its line breaks).
            let sample = try #require(
                readme.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "\n```").first)
            let printed = try await Self.run(
                "xkcd-search search bobby tables --limit 1 --json", in: directory, cli: cli, environment: environment)
            #expect(printed.stdout == sample.replacingOccurrences(of: "\n ", with: "") + "\n", "\(printed)")
            for example in examples {
                let command =
                    example.hasPrefix("xkcd-search index") && !example.contains("--mirror")
                    ? example + " --xkcd-url \(base) --explain-url \(base) --image-url \(base)" : example
                let output = try await Self.run(command, in: directory, cli: cli, environment: environment)
                #expect(output.status == 0, "\(example): \(output)")
            }
        }
    }
}
