import ArgumentParser
import FoundationEssentials

/// The options of `xkcd-search index`, declared once for both executables: `xkcd-search` parses
/// and checks them (for its help, its errors and the REPL's completion) and `xkcd-search-index`
/// acts on them.
public struct IndexOptions: ParsableArguments, Sendable {
    public static let abstract = "Fetch new comics and explanations and add them to the index."
    public static let discussion = """
        Asks xkcd.com for the latest comic, then fetches every comic and explain xkcd page \
        the index lacks, a few at a time. Raw responses are kept in \
        $XDG_CACHE_HOME/xkcd-search/raw, so --rebuild needs no network. An interrupted run \
        resumes where it stopped; comics that failed are retried by the next run. Then each new or \
        changed comic is embedded by the sentence model, for search by meaning (about a tenth of a \
        second each; --vectors takes precomputed ones). Indexing runs \
        in a process of its own.

        Examples:
          xkcd-search index
          xkcd-search index --mirror .build/snapshot --vectors .build/snapshot/vectors.sqlite
          xkcd-search index --rebuild
          xkcd-search index --linked-passages /usr/local/share/xkcd-search/linked-passages.tsv
          xkcd-search index --images
        """

    @Option(
        help: ArgumentHelp(
            "Read a local mirror laid out as xkcd/N/info.0.json and explainxkcd/api/N.json.", valueName: "dir"))
    public var mirror: String?

    @Flag(help: "Parse and index again every comic from the kept responses (or the mirror), without requests.")
    public var rebuild = false

    @Option(help: ArgumentHelp("Base URL of the xkcd JSON API.", valueName: "url"))
    public var xkcdURL = "https://xkcd.com"

    @Option(help: ArgumentHelp("Base URL of the explain xkcd wiki.", valueName: "url"))
    public var explainURL = "https://www.explainxkcd.com"

    @Option(
        help: ArgumentHelp(
            "Take comic vectors from this file (scripts/export-vectors.sh writes one) where they match the model and the text, instead of embedding those comics.",
            valueName: "file"))
    public var vectors: String?

    @Option(
        help: ArgumentHelp(
            "Make the passages of this file (tab-separated: query, relevant, source, and kind: written for a situation written for the comic) the ones relevant reads: passages people linked comics to, and situations written for them; make install puts one in share/xkcd-search/linked-passages.tsv.",
            valueName: "file"))
    public var linkedPassages: String?

    @Flag(help: "Do not embed comics for search by meaning (it then leaves out the comics not embedded yet).")
    public var noEmbed = false

    @Option(help: "Requests in flight per site.")
    public var concurrency = 4

    @Option(help: ArgumentHelp("Seconds before a request is given up and retried.", valueName: "seconds"))
    public var timeout: Double = 30

    @Flag(
        help:
            "Then fetch every comic image not yet kept in $XDG_CACHE_HOME/xkcd-search/images (0.15 to 0.36 GB for every comic)."
    )
    public var images = false

    @Option(help: ArgumentHelp("Base URL of the comic images.", valueName: "url"))
    public var imageURL = ImageOptions.defaultImageURL

    @Flag(help: "Print the summary as JSON.")
    public var json = false

    public init() {}

    /// The error for a `--timeout` that is no number of seconds a request can wait.
    public static func badTimeout(_ value: String) -> ValidationError {
        ValidationError("--timeout must be a number of seconds above 0 and at most 3600, not \(value)")
    }

    public func validate() throws {
        guard concurrency >= 1, concurrency <= 16 else {
            throw ValidationError("--concurrency must be between 1 and 16")
        }
        guard timeout.isFinite, timeout > 0, timeout <= 3600 else { throw Self.badTimeout(String(timeout)) }
        for (name, value) in [("--xkcd-url", xkcdURL), ("--explain-url", explainURL), ("--image-url", imageURL)] {
            try ImageOptions.validateBaseURL(value, option: name)
        }
        if let vectors, !FileManager.default.fileExists(atPath: vectors) {
            throw ValidationError("--vectors \(vectors): no such file")
        }
        if let mirror, !FileManager.default.fileExists(atPath: mirror + "/xkcd/info.0.json") {
            throw ValidationError("--mirror \(mirror) has no xkcd/info.0.json")
        }
    }
}
