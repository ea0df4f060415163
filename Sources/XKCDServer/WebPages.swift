import Foundation
import Hummingbird
import Mustache
import NIOCore
import XKCDFiles
import XKCDKit
// The first, previous, next and latest numbers for a comic page's links.
import XKCDStore

/// The web page (issue 26): server-rendered HTML from the templates in `Web/templates`, every
/// value escaped by swift-mustache, that works without JavaScript; `Web/static/site.js` only
/// enhances it (live search, keys, favourites without a reload, batch loading). docs/web.md.
struct WebPages: Sendable {
    let templates: MustacheLibrary
    let served: ServedIndex
    let sentenceModel: SentenceModel
    let imagesDirectory: URL
    let isReadOnly: Bool
    /// The index the request under way answers from, and the engine and library over it.
    var engine: SearchEngine { served.generation.engine }
    var library: Library { served.generation.library }
    var database: ComicDatabase { served.generation.database }

    init(served: ServedIndex, sentenceModel: SentenceModel, imagesDirectory: URL, isReadOnly: Bool) {
        // They come with the build; without them every page is a 500 (the log says which).
        self.templates = (try? Self.loadTemplates()) ?? MustacheLibrary()
        self.served = served
        self.sentenceModel = sentenceModel
        self.imagesDirectory = imagesDirectory
        self.isReadOnly = isReadOnly
    }

    /// Results a page of `/search` shows, and the batch the script loads at a time.
    static let batchSize = 20

    /// The folder of the templates, the style sheet and the script: the module's resource bundle
    /// beside the executable where SwiftPM builds it, or `<prefix>/share/xkcd-search/web` where
    /// `make install` copies it (found as the model is). Not `Bundle.module`, which traps when
    /// the bundle is not where it was built.
    static let webDirectory: URL = {
        // /proc/self/exe is the executable with every symbolic link resolved.
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let directory = executable.deletingLastPathComponent()
        let candidates = [
            directory.appendingPathComponent("xkcd-search_XKCDServer.resources/Web"),
            directory.deletingLastPathComponent().appendingPathComponent("share/xkcd-search/web"),
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("templates").path) }
            ?? candidates[0]
    }()

    /// The policy of the pages: their own script, style sheet and images, nothing else (no
    /// inline script or style, no other site), forms posted to the server itself only.
    static let contentSecurityPolicy: ContentSecurityPolicy = [
        .defaultSrc(.none), .scriptSrc(.self), .styleSrc(.self), .imgSrc(.self), .connectSrc(.self),
        .formAction(.self), .baseURI(.none), .frameAncestors(.none),
    ]

    static func loadTemplates() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        let directory = webDirectory.appendingPathComponent("templates")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasSuffix(".mustache") {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            try library.register(text, named: String(name.dropLast(".mustache".count)))
        }
        return library
    }

    func add(to router: Router<BasicRequestContext>) {
        router.get("/") { request, _ in try await render(request) { try home() } }
        router.get("/search") { request, _ in try await render(request) { try search(request.uri.queryParameters) } }
        router.get("/favourites") { request, _ in
            try await render(request) { try favourites(tag: request.uri.queryParameters.get("tag")) }
        }
        router.get("/about") { request, _ in try await render(request) { try about() } }
        router.get("/relevant") { request, _ in try await render(request) { .relevant(RelevantView()) } }
        router.post("/relevant") { request, _ in try await render(request) { try await relevant(request) } }
        router.get("/:comic") { request, context in
            try await render(request) { try comic(try context.parameters.require("comic")) }
        }
        router.post("/:comic/favourite") { request, context in
            try await render(request) { try await toggleFavourite(request, context: context) }
        }
        router.add(
            middleware: FileMiddleware(
                Self.webDirectory.appendingPathComponent("static").path, urlBasePath: "/static",
                cacheControl: CacheControl([(MediaType(type: .any), [.public, .maxAge(3600)])])))
    }

    // MARK: Answers

    /// What a page handler returns: a page to render, or a redirect.
    enum Outcome {
        case page(template: String, title: String, status: HTTPResponse.Status = .ok, content: any Sendable)
        case redirect(String)

        static func relevant(_ view: RelevantView, status: HTTPResponse.Status = .ok) -> Outcome {
            .page(template: "relevant", title: "Is there an xkcd for this?", status: status, content: view)
        }
    }

    /// Renders the outcome in the layout; the library's errors become an error page with the
    /// status the API gives them, worded for the page.
    private func render(_ request: Request, _ make: () async throws -> Outcome) async throws -> Response {
        let outcome: Outcome
        do {
            outcome = try await make()
        } catch {
            guard let apiError = APIError.from(error) else { throw error }
            outcome = .page(
                template: "error", title: "Not here", status: apiError.status,
                content: ErrorView(message: apiError.message))
        }
        switch outcome {
        case .redirect(let location):
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
        case .page(let template, let title, let status, let content):
            let query = request.uri.path == "/search" ? request.uri.queryParameters.get("q") ?? "" : ""
            let page = PageView(title: title, query: query, content: content)
            guard let html = templates.render(page, withTemplate: template) else {
                throw APIError.notFound("no such page")
            }
            return Response(
                status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
        }
    }

    // MARK: Pages

    private func home() throws -> Outcome {
        let latest = try library.page(library.resolve(.latest))
        return .page(template: "home", title: "xkcd-search", content: HomeView(comic: try comicView(latest)))
    }

    private func search(_ parameters: Parameters) throws -> Outcome {
        let query = parameters.get("q") ?? ""
        guard !query.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .page(template: "search", title: "Search", content: SearchView.empty)
        }
        let page = Int(parameters.get("page") ?? "1").map { max(1, $0) } ?? 1
        do {
            let isExact = parameters.get("exact") == "1"
            let results = try engine.search(query, limit: Self.batchSize, page: page, correctingSpelling: !isExact)
            var view = SearchView(results)
            view.isExact = isExact
            return .page(template: "search", title: "\(query) – search", content: view)
        } catch let error as QueryError {
            return .page(
                template: "search", title: "Search", status: .badRequest,
                content: SearchView(problem: error.description))
        } catch let error as SearchError {
            return .page(
                template: "search", title: "Search", status: .badRequest,
                content: SearchView(problem: error.description))
        }
    }

    /// The passage form posted: the comics that fit it, with why. A passage over
    /// ``SearchEngine/maximumPassageLength`` is cut at a sentence end, and the page says so, as
    /// the CLI does. Posted rather than put in the address, which a paragraph would outgrow.
    private func relevant(_ request: Request) async throws -> Outcome {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: APIServer.maximumRelevantBody)
        } catch is NIOTooManyBytesError {
            return .relevant(
                RelevantView(problem: "the passage is far over \(SearchEngine.maximumPassageLength) bytes"),
                status: .contentTooLarge)
        }
        guard let form = try? URLEncodedFormDecoder().decode(RelevantForm.self, from: String(buffer: body)) else {
            return .relevant(RelevantView(problem: "the form cannot be read"), status: .badRequest)
        }
        // A browser sends a text area's line ends as CR LF; the passage is given back as typed.
        let text = (form.text ?? "").replacingOccurrences(of: "\r\n", with: "\n")
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            return .relevant(RelevantView(problem: "write or paste a passage first"), status: .badRequest)
        }
        do {
            return .relevant(RelevantView(try engine.relevant(to: text, limit: Self.batchSize)))
        } catch let error as SearchError {
            return .relevant(RelevantView(passage: text, problem: error.description), status: .badRequest)
        }
    }

    struct RelevantForm: Decodable {
        var text: String?
    }

    private func comic(_ text: String) throws -> Outcome {
        let reference = try ComicReference(parsing: text)
        switch reference {
        case .random, .latest: return .redirect("/\(try library.resolve(reference))")
        case .number: break
        }
        let page = try library.page(library.resolve(reference))
        return .page(template: "comic", title: "#\(page.comic.id): \(page.comic.title)", content: try comicView(page))
    }

    private func favourites(tag: String?) throws -> Outcome {
        let tag = tag.flatMap { $0.isEmpty ? nil : $0 }
        let entries = try library.favourites(taggedWith: tag).map { entry in
            FavouritesView.Entry(
                num: entry.favourite.id, title: entry.comic?.title ?? "not in the index yet", tags: entry.favourite.tags
            )
        }
        let tags = try library.tagCounts().map {
            FavouritesView.Tag(name: $0.tag, count: $0.count, isChosen: $0.tag == tag)
        }
        return .page(
            template: "favourites", title: "Favourites",
            content: FavouritesView(
                tag: tag, entries: entries, tags: tags, hasTags: !tags.isEmpty, isEmpty: entries.isEmpty))
    }

    private func about() throws -> Outcome {
        let stats = try StatsDocument(reading: database, imagesDirectory: imagesDirectory, model: sentenceModel)
        return .page(template: "about", title: "About", content: AboutView(stats))
    }

    /// The no-JavaScript favourite toggle: a form posted by the comic's own page. Same-origin only,
    /// by the rule of the favourites API (``APIServer/isSameOrigin(_:)``), so that another site's
    /// form cannot change the favourites; then back to the comic (303).
    private func toggleFavourite(_ request: Request, context: BasicRequestContext) async throws -> Outcome {
        guard APIServer.isSameOrigin(request) else {
            return .page(
                template: "error", title: "Refused", status: .forbidden,
                content: ErrorView(message: "favourites can be changed from this server's own pages only"))
        }
        guard !isReadOnly else {
            return .page(
                template: "error", title: "Refused", status: .forbidden,
                content: ErrorView(message: "this server is read-only: favourites cannot be changed"))
        }
        let reference = try ComicReference(parsing: try context.parameters.require("comic"))
        // A form of one button and a tags field: 16 kB is plenty.
        let body = try await request.body.collect(upTo: 16_384)
        guard let form = try? URLEncodedFormDecoder().decode(FavouriteForm.self, from: String(buffer: body)) else {
            throw APIError.badRequest("the form cannot be read")
        }
        if form.action == "remove" {
            _ = try library.removeFavourite(reference)
        } else {
            let tags = (form.tags ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            _ = try library.addFavourite(reference, tags: tags)
        }
        return .redirect("/\(try library.resolve(reference))")
    }

    struct FavouriteForm: Decodable {
        var action: String
        var tags: String?
    }

    // MARK: Views

    private func comicView(_ page: ComicPage) throws -> ComicView {
        let id = page.comic.id
        let related = try library.related(.number(id)).related.map { comic in
            ComicView.Related(
                num: comic.id, title: comic.title, why: comic.reasons.map(\.rawValue).joined(separator: ", "))
        }
        return ComicView(
            page: page, cache: ImageCache(directory: imagesDirectory), previous: try database.comicID(before: id),
            next: try database.comicID(after: id),
            first: try database.firstComicID(), latest: try database.latestComicID(), related: related,
            isReadOnly: isReadOnly)
    }
}

/// What every page has: its title and the search box's text.
struct PageView {
    var title: String
    var query: String
    var content: any Sendable
}

struct ErrorView: Sendable {
    var message: String
}

struct HomeView: Sendable {
    var comic: ComicView
}

struct ComicView: Sendable {
    struct Related: Sendable {
        var num: Int
        var title: String
        var why: String
    }

    var num: Int
    var title: String
    var date: String
    var alt: String
    /// `/images/N`, or nil when the comic has no image or it could not be fetched lately.
    var image: String?
    /// False for a comic without an image of its own (#1608, #1663).
    var hasOwnImage: Bool
    var isInteractive: Bool
    var xkcdURL: String
    var explainURL: String
    var previous: Int?
    var next: Int?
    var first: Int?
    var latest: Int?
    var explanation: [String]
    var hasExplanation: Bool
    var transcript: String?
    var related: [Related]
    var hasRelated: Bool
    var isFavourite: Bool
    var tags: String
    var isReadOnly: Bool

    init(
        page: ComicPage, cache: ImageCache, previous: Int?, next: Int?, first: Int?, latest: Int?, related: [Related],
        isReadOnly: Bool
    ) {
        let comic = page.comic
        num = comic.id
        title = sanitized(comic.title)
        date = comic.date.description
        alt = sanitized(comic.alt)
        hasOwnImage = ImageCache.fileName(comic: comic.id, imageURL: comic.imageURL) != nil
        // `/images/N` fetches an image not kept yet; one that could not be had lately is not
        // asked for again (the route would answer 404 at once, and the page show a broken image).
        let isMissing = cache.missing(comic: comic.id, imageURL: comic.imageURL) != nil
        image = hasOwnImage && !isMissing ? "/images/\(comic.id)" : nil
        isInteractive = page.isInteractive
        xkcdURL = comic.url
        explainURL = comic.explainURL
        self.previous = previous == comic.id ? nil : previous
        self.next = next
        self.first = first == comic.id ? nil : first
        self.latest = latest == comic.id ? nil : latest
        explanation = (page.explanation?.page.explanation ?? "").components(separatedBy: "\n\n")
            .map { sanitized($0) }.filter { !$0.isEmpty }
        hasExplanation = !explanation.isEmpty
        transcript = page.transcript.isEmpty ? nil : sanitized(page.transcript, keepingNewlines: true)
        self.related = related
        hasRelated = !related.isEmpty
        isFavourite = page.favourite != nil
        tags = page.favourite?.tags.joined(separator: " ") ?? ""
        self.isReadOnly = isReadOnly
    }
}

struct SearchView: Sendable {
    struct Result: Sendable {
        /// A piece of the snippet, marked when it is a matched word.
        struct Piece: Sendable {
            var text: String
            var isMarked: Bool
        }

        var num: Int
        var title: String
        var date: String
        var snippet: [Piece]
        var match: String
    }

    var query: String = ""
    /// The texts for links, as a URL's query gives them.
    var queryParameter: String = ""
    var total: Int = 0
    var isOne: Bool = false
    var results: [Result] = []
    var corrected: String?
    var correctedParameter: String?
    var typed: String?
    var typedParameter: String?
    var suggestion: String?
    var suggestionParameter: String?
    var note: String?
    var problem: String?
    var nextPage: Int?
    var isExact = false
    var isEmpty: Bool = false

    static let empty = SearchView()

    init(problem: String? = nil) {
        self.problem = problem
    }

    init(_ results: SearchResults) {
        query = results.query
        queryParameter = Self.parameter(results.query)
        total = results.total
        isOne = results.total == 1
        self.results = results.results.map { result in
            let match =
                switch result.match {
                case .allWords: "all words"
                case .someWords: "some words"
                case .similar: "similar in meaning"
                }
            return Result(
                num: result.id, title: sanitized(result.title), date: result.date.description,
                snippet: Self.pieces(of: result.snippet), match: match)
        }
        corrected = results.corrected
        correctedParameter = results.corrected.map(Self.parameter)
        typed = results.corrected == nil ? nil : results.query
        typedParameter = typed.map(Self.parameter)
        suggestion = results.suggestion
        suggestionParameter = results.suggestion.map(Self.parameter)
        note = results.note
        nextPage = results.hasNextPage ? results.page + 1 : nil
        isEmpty = results.results.isEmpty
    }

    /// `text` as a value in a URL's query: `&`, `+`, `=` and `#` encoded too.
    static func parameter(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&+=#"))) ?? ""
    }

    /// The snippet cut at the engine's marks, so that the template marks the matched words and
    /// escapes every piece.
    static func pieces(of snippet: String) -> [Result.Piece] {
        var pieces: [Result.Piece] = []
        var isMarked = false
        var text = ""
        for character in sanitized(snippet) {
            let mark = String(character)
            if mark == SearchEngine.highlightMarks.open || mark == SearchEngine.highlightMarks.close {
                if !text.isEmpty { pieces.append(.init(text: text, isMarked: isMarked)) }
                text = ""
                isMarked = mark == SearchEngine.highlightMarks.open
            } else {
                text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.init(text: text, isMarked: isMarked)) }
        return pieces
    }
}

/// The passage form, and the comics that fit the passage posted.
struct RelevantView: Sendable {
    struct Result: Sendable {
        var num: Int
        var title: String
        var date: String
        var snippet: [SearchView.Result.Piece]
        var words: String?
        var meaning: String?
        var liftedBy: [String]
    }

    var passage = ""
    var note: String?
    var problem: String?
    var results: [Result] = []
    var hasResults = false
    var isEmpty = false

    init(passage: String = "", problem: String? = nil) {
        self.passage = sanitized(passage, keepingNewlines: true)
        self.problem = problem
    }

    init(_ found: RelevantResults) {
        passage = sanitized(found.passage, keepingNewlines: true)
        // Why meaning could not be asked is the server's business (it can name a file): the
        // page says only that it was not, as /api/stats does.
        let notes = [
            found.cutNote.map { $0 + " (the box holds the part read)" },
            found.semanticProblem.map { _ in "ranked by words only: search by meaning is not available on this server"
            },
        ]
        let joined = notes.compactMap { $0 }.joined(separator: "; ")
        note = joined.isEmpty ? nil : joined
        results = found.results.map { result in
            let meaning = result.similarity.map { similarity in
                let nearest = result.sentence.map { ": \u{201C}\(sanitized($0))\u{201D}" } ?? ""
                return String(format: "similar in meaning (%.2f)", similarity) + nearest
            }
            return Result(
                num: result.id, title: sanitized(result.title), date: result.date.description,
                snippet: SearchView.pieces(of: result.snippet),
                words: result.words.isEmpty ? nil : sanitized(result.words.joined(separator: ", ")), meaning: meaning,
                liftedBy: result.liftedBy)
        }
        hasResults = !results.isEmpty
        isEmpty = results.isEmpty
    }
}

struct FavouritesView: Sendable {
    struct Entry: Sendable {
        var num: Int
        var title: String
        var tags: [String]
    }

    struct Tag: Sendable {
        var name: String
        var count: Int
        var isChosen: Bool
    }

    var tag: String?
    var entries: [Entry]
    var tags: [Tag]
    var hasTags: Bool
    var isEmpty: Bool
}

struct AboutView: Sendable {
    var comics: Int
    var latest: Int?
    var explained: Int
    var favourites: Int
    var images: Int
    var model: String?
    var embedded: Int
    var lastUpdate: String?

    init(_ stats: StatsDocument) {
        comics = stats.comics
        latest = stats.latest
        explained = stats.explained
        favourites = stats.favourites
        images = stats.images
        model = stats.semanticSearch ? stats.semanticModel : nil
        embedded = stats.embeddedComics
        lastUpdate = stats.lastUpdate
    }
}
