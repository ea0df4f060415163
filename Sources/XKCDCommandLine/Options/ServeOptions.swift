import ArgumentParser

/// The options of `xkcd-search serve`, declared once for both executables: `xkcd-search` parses
/// and checks them (for its help and its errors) and `xkcd-search-serve` acts on them.
public struct ServeOptions: ParsableArguments, Sendable {
    public static let abstract = "Serve the index as an HTTP JSON API and a web page."
    public static let discussion = """
        Answers GET /api/search?q=&page=&limit=&exact=, /api/comics/N (latest, random; \
        ?explain=1), /api/comics/N/related, /api/suggest?q=, /api/stats, /api/favourites, \
        /healthz and /api/openapi.json (the API described as OpenAPI \
        3.1) with the JSON that --json prints (README.md, "The HTTP API"), /images/N with the \
        comic's image, POST /api/relevant with {"text": "..."} (the comics that fit a \
        passage, as relevant --json prints them), and PUT and DELETE /api/favourites/N from a \
        page it serves; and a web page for searching and reading the comics at /, and for \
        finding the comics that fit a passage at /relevant ("The web page"). Binds \
        127.0.0.1 unless --host says otherwise, and prints the URL it serves. Requests whose \
        Host header names another server are refused. SIGINT or SIGTERM stops it once the \
        requests under way are answered. Serving runs in a process of its own.

        Examples:
          xkcd-search serve
          xkcd-search serve --port 0
          xkcd-search serve --host 0.0.0.0 --allowed-host xkcd.example.org --read-only
        """

    @Option(help: ArgumentHelp("The address to listen on.", valueName: "address"))
    public var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The port to listen on (0: any free port).", valueName: "port"))
    public var port = 8080

    @Flag(help: "Refuse every change (favourites).")
    public var readOnly = false

    @Option(
        help: ArgumentHelp(
            "A further name the Host header may give, such as a public name behind a proxy (repeatable).",
            valueName: "name"))
    public var allowedHost: [String] = []

    @Option(
        help: ArgumentHelp("Base URL of the comic images, fetched for /images/N when not kept yet.", valueName: "url"))
    public var imageURL = ImageOptions.defaultImageURL

    @Option(help: ArgumentHelp("Answer 503 to a request not answered within this many seconds.", valueName: "seconds"))
    public var deadline = 10

    @Option(
        help: ArgumentHelp(
            "Answer 503 to POST /api/identify (reading an image's words) not answered within this many seconds.",
            valueName: "seconds"))
    public var identifyDeadline = 30

    public init() {}

    public func validate() throws {
        guard (0...65535).contains(port) else {
            throw ValidationError("--port must be between 0 and 65535, not \(port)")
        }
        guard !host.isEmpty else { throw ValidationError("--host needs an address, such as 127.0.0.1") }
        guard (1...3600).contains(deadline) else {
            throw ValidationError("--deadline must be between 1 and 3600 seconds, not \(deadline)")
        }
        guard (1...3600).contains(identifyDeadline) else {
            throw ValidationError("--identify-deadline must be between 1 and 3600 seconds, not \(identifyDeadline)")
        }
        try ImageOptions.validateBaseURL(imageURL, option: "--image-url")
    }
}
