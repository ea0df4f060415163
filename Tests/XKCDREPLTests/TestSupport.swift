import Foundation
import Logging
import Synchronization
import XKCDFiles
import XKCDIndexer
import XKCDKit
import XKCDREPL
import XKCDStore
import _XKCDTestSupport

/// An index of the fixture corpus, built once and copied per test.
enum FixtureIndex {
    private static let template = Task<URL, any Error> {
        let directory = try makeTemporaryDirectory("xkcd-repl-template")
        let file = directory.appendingPathComponent("index.sqlite")
        let database = try ComicDatabase.open(at: file.path)
        let indexer = Indexer(
            database: database, source: MirrorComicSource(directory: Fixtures.corpusURL), logger: Logger(label: "test"))
        _ = try await indexer.run()
        return file
    }

    /// A fresh copy of the fixture index, searched by words alone.
    static func make() async throws -> OpenIndex {
        let source = try await template.value
        let directory = try makeTemporaryDirectory("xkcd-repl")
        let target = directory.appendingPathComponent("index.sqlite")
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: target.path + suffix)
        }
        let services = Services(
            paths: Paths(database: target.path), logger: Logger(label: "test"), searchesByMeaning: false)
        return try services.open(.serving)
    }
}

/// Lines fed one by one, then the end.
final class ScriptedLines: LineSource {
    private var lines: [LineInput]
    init(_ lines: [String]) { self.lines = lines.map(LineInput.line) }
    init(inputs: [LineInput]) { self.lines = inputs }
    func readLine(prompt: String) -> LineInput { lines.isEmpty ? .end : lines.removeFirst() }
}

/// Everything written, stdout and stderr apart.
final class Transcript: OutputSink {
    var output = ""
    var errors = ""
    func write(_ text: String) { output += text }
    func writeError(_ text: String) { errors += text }
    func flush() {}
}

/// Ctrl-C pressed once, while the first command runs (the session clears stale presses before
/// each prompt, which is the first look).
final class InterruptOnSecondLook: InterruptSource {
    private let looks = Atomic<Int>(0)
    func takeInterrupt() -> Bool { looks.add(1, ordering: .relaxed).newValue == 2 }
}

/// A command line with a few commands that records the arguments it was asked to parse.
final class RecordingHost: Sendable {
    let calls = Mutex<[[String]]>([])

    static let root = CommandSpec(
        name: "xkcd-search",
        subcommands: [
            CommandSpec(name: "search", options: ["--limit", "--page", "--json", "--db"]),
            CommandSpec(name: "show", options: ["--explain", "--json"]),
            CommandSpec(name: "stats", options: ["--json"]),
            CommandSpec(name: "next"), CommandSpec(name: "prev", aliases: ["previous"]), CommandSpec(name: "latest"),
            CommandSpec(name: "random", options: ["--fav", "--tag"]), CommandSpec(name: "explain"),
            CommandSpec(
                name: "fav",
                subcommands: [
                    CommandSpec(name: "add"), CommandSpec(name: "remove", aliases: ["rm"]), CommandSpec(name: "tag"),
                    CommandSpec(name: "untag"), CommandSpec(name: "list", options: ["--tag", "--json"]),
                    CommandSpec(name: "tags"),
                ]),
        ])

    func makeHost(output: Transcript) -> CommandHost {
        let render: @Sendable (SearchResults, String) -> String = { results, hint in
            let ids = results.results.map { "#\($0.id)" }.joined(separator: " ")
            return "page \(results.page): \(ids)\(results.hasNextPage ? " · next page: \(hint)" : "")\n"
        }
        nonisolated(unsafe) let output = output
        return CommandHost(
            root: Self.root,
            parse: { [self] arguments in
                self.calls.withLock { $0.append(arguments) }
                if arguments.first == "search" {
                    let limit = arguments.firstIndex(of: "--limit").map { Int(arguments[$0 + 1])! } ?? 10
                    let words = arguments.dropFirst().filter { !$0.hasPrefix("--") && Int($0) == nil }
                    let request = try SearchRequest(text: words.joined(separator: " "), limit: limit)
                    return .search(SessionSearch(request, render: render))
                }
                if arguments.contains("--bad") { throw REPLError.command("unknown option '--bad'") }
                if arguments == ["show", "--help"] { return .output("USAGE: xkcd-search show") }
                if arguments == ["show", "fail"] { return .run { throw LibraryError.emptyIndex } }
                return .run { output.write("ran \(arguments.joined(separator: " "))\n") }
            },
            describe: { "\($0)" },
            renderSearch: render)
    }

    var recorded: [[String]] { calls.withLock { $0 } }
}
