import ArgumentParser
import XKCDKit

/// The comic a browsing command is about, as one argument every such command takes the same way
/// (`show`, `explain`, `related`, `link`, `open`): a number, `latest`, `random` or its address;
/// none is the comic shown last.
struct ComicArgument: ParsableArguments {
    @Argument(
        help: ArgumentHelp("327, #327, latest or random (default: the comic shown last).", valueName: "comic"),
        completion: comicCompletion)
    var comic: String?

    /// The comic as named; nil is the comic shown last.
    ///
    /// - Throws: `LibraryError.notANumber` or `.belowFirst` for text that names no comic.
    func reference() throws -> ComicReference? {
        try comic.map { try ComicReference(parsing: $0) }
    }
}
