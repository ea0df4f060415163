import ArgumentParser
import Foundation
import XKCDCommandLine
import XKCDFiles
import XKCDKit

extension XKCDSearch {
    struct Fav: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fav",
            abstract: "Keep favourite comics, with tags; export and import them.",
            discussion: """
                Tags are one word of at most 40 letters (of any script, with their marks), digits, \
                '-' and '_', stored lower-cased by Unicode's rules. \
                Favourites are kept apart from the comics, so re-indexing never loses them. \
                Search them with 'is:fav' and 'tag:NAME'.

                Examples:
                  xkcd-search fav add 327 sql security
                  xkcd-search fav list --tag sql
                  xkcd-search search is:fav tag:sql bobby
                """,
            subcommands: [Add.self, Remove.self, Tag.self, Untag.self, List.self, Tags.self, Export.self, Import.self])
    }
}

extension XKCDSearch.Fav {
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a comic to the favourites, with tags.",
            discussion: "Examples:\n  xkcd-search fav add 327 sql security")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("327, #327, latest or random.", valueName: "comic"), completion: comicCompletion)
        var comic: String
        @Argument(help: ArgumentHelp("Tags to attach.", valueName: "tag"), completion: tagCompletion) var tags:
            [String] = []

        func run() throws {
            let change = try FavouriteChange(.add, comic: try ComicReference(parsing: comic), tags: tags)
            let added = try change.run(in: global.open(.writing))
            let name = ["#\(added.entry?.favourite.id ?? 0)", added.entry?.comic.map { sanitized($0.title) }]
                .compactMap { $0 }.joined(separator: " ")
            let tagged = added.changedTags.isEmpty ? "" : " (tagged \(added.changedTags.joined(separator: ", ")))"
            print(added.isNew ? "added \(name) to the favourites\(tagged)" : "\(name) was already a favourite\(tagged)")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove a comic from the favourites.",
            discussion: "Examples:\n  xkcd-search fav remove 327", aliases: ["rm"])
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("327 or #327.", valueName: "comic")) var comic: String

        func run() throws {
            let change = try FavouriteChange(.remove, comic: try ComicReference(parsing: comic))
            let removed = try change.run(in: global.open(.writing))
            let name = ["#\(removed.entry?.favourite.id ?? 0)", removed.entry?.comic.map { sanitized($0.title) }]
                .compactMap { $0 }.joined(separator: " ")
            print("removed \(name) from the favourites")
        }
    }

    struct Tag: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tag", abstract: "Attach tags to a favourite.",
            discussion: "Examples:\n  xkcd-search fav tag 327 classic")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("327 or #327.", valueName: "comic")) var comic: String
        @Argument(help: ArgumentHelp("Tags to attach.", valueName: "tag"), completion: tagCompletion) var tags: [String]

        func run() throws {
            let change = try FavouriteChange(.tag, comic: try ComicReference(parsing: comic), tags: tags)
            let added = try change.run(in: global.open(.writing)).changedTags
            print(
                added.isEmpty
                    ? "nothing to do: those tags were there already" : "tagged \(added.joined(separator: ", "))")
        }
    }

    struct Untag: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "untag", abstract: "Detach tags from a favourite.",
            discussion: "Examples:\n  xkcd-search fav untag 327 classic")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("327 or #327.", valueName: "comic")) var comic: String
        @Argument(help: ArgumentHelp("Tags to detach.", valueName: "tag"), completion: tagCompletion) var tags: [String]

        func run() throws {
            let change = try FavouriteChange(.untag, comic: try ComicReference(parsing: comic), tags: tags)
            let removed = try change.run(in: global.open(.writing)).changedTags
            print(
                removed.isEmpty
                    ? "nothing to do: it had none of those tags" : "untagged \(removed.joined(separator: ", "))")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the favourites, by number.",
            discussion: "Examples:\n  xkcd-search fav list\n  xkcd-search fav list --tag physics --json")
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("Only favourites with this tag.", valueName: "name"), completion: tagCompletion)
        var tag: String?
        @Flag(help: "Print JSON: a list of {num, title, date, added, tags, url}.") var json = false

        func run() throws {
            let entries = try FavouriteListRequest(tag: tag).run(in: global.open())
            if json { return try JSONOutput.print(entries.map(FavouriteDocument.init)) }
            if entries.isEmpty {
                return print(tag.map { "no favourite is tagged '\(sanitized($0))'" } ?? "no favourites yet")
            }
            Pager.start(unless: global.noPager)
            for entry in entries {
                let comic = entry.comic.map { "\(sanitized($0.title))  (\($0.date))" } ?? "(not in the index yet)"
                let tags = entry.favourite.tags.isEmpty ? "" : "  [\(entry.favourite.tags.joined(separator: ", "))]"
                print("#\(entry.favourite.id)  \(comic)\(tags)")
            }
        }
    }

    struct Tags: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tags", abstract: "List the tags with how many favourites carry each.",
            discussion: "Examples:\n  xkcd-search fav tags")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON: a list of {tag, count}.") var json = false

        func run() throws {
            let counts = try global.open().library.tagCounts()
            if json { return try JSONOutput.print(counts) }
            if counts.isEmpty { return print("no tags yet") }
            let width = counts.map { Terminal.columns(of: $0.tag) }.max() ?? 0
            // Padded by the columns a terminal gives each tag: a CJK character takes two.
            for count in counts {
                print(
                    count.tag + String(repeating: " ", count: width - Terminal.columns(of: count.tag))
                        + "  \(count.count)")
            }
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the favourites as JSON, to a file or standard output.",
            discussion: """
                Format: {"format": "xkcd-search favourites", "version": 1, "exported": ISO 8601, \
                "favourites": [{"num": 327, "title": "…", "added": ISO 8601, "tags": ["sql"]}]}.

                Examples:
                  xkcd-search fav export > favourites.json
                  xkcd-search fav export favourites.json
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(
            help: ArgumentHelp("The file to write ('-' or nothing: standard output).", valueName: "file"),
            completion: .file()) var file: String?

        func validate() throws {
            if file?.isEmpty == true {
                throw ValidationError("fav export needs a file name, or '-' (or nothing) for standard output")
            }
        }

        func run() throws {
            let index = try global.open()
            let library = index.library
            let data = try library.exportFavourites()
            guard let file, file != "-" else {
                return StandardStreams.writeOutput(Array(JSONDocument.escapingControls(inJSON: data)))
            }
            try OutputFile.write(data, to: file, sparingIndexAt: index.services.paths.databasePath)
            print("exported \(counted(try library.favourites().count, "favourite")) to \(file)")
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Merge favourites from a file written by 'fav export'.",
            discussion:
                "Importing is idempotent; a malformed file changes nothing.\n\nExamples:\n  xkcd-search fav import favourites.json\n  ssh other-host xkcd-search fav export | xkcd-search fav import -"
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The file to read ('-': standard input).", valueName: "file"), completion: .file())
        var file: String

        func validate() throws {
            guard !file.isEmpty else { throw ValidationError("fav import needs a file, or '-' for standard input") }
        }

        func run() throws {
            let library = try global.open(.writing).library
            let result =
                file == "-"
                ? try library.importFavourites(Data(InputReading.bytes()), source: InputReading.standardInputName)
                : try library.importFavourites(Data(InputReading.bytes(ofFileAt: file)), source: file)
            let numbers = { (ids: [Int]) in
                ids.prefix(20).map { "#\($0)" }.joined(separator: ", ") + (ids.count > 20 ? ", …" : "")
            }
            var line =
                result.addedFavourites.isEmpty && result.addedTags == 0
                ? "nothing new: all \(result.entries) favourites were here already"
                : "added \(counted(result.addedFavourites.count, "favourite")) and \(counted(result.addedTags, "tag"))"
                    + (result.addedFavourites.isEmpty ? "" : " (\(numbers(result.addedFavourites)))")
            print(line)
        }
    }
}

/// `1 favourite`, `2 favourites`.
func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// What a shell completes for a comic: the words; a number is typed.
let comicCompletion = CompletionKind.list(["latest", "random"])

/// The tags of the favourites, read from the index the command line names (`--db`) or the
/// default one; none when it cannot be read.
let tagCompletion = CompletionKind.custom { words, _, prefix in
    let database = Array(zip(words, words.dropFirst())).last { $0.0 == "--db" }?.1
    let index = try? GlobalOptions.open(GlobalOptions.makeServices(database: database, verbose: false), .reading)
    let tags = index.flatMap { try? $0.library.tagCounts() } ?? []
    return tags.map(\.tag).filter { $0.hasPrefix(prefix) }
}
