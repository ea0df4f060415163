import Foundation
import Hummingbird
import Mustache
import NIOCore
import XKCDFiles
import XKCDKit

/// The web page (issue 26): server-rendered HTML from the templates in `Web/templates`, every
/// value escaped by swift-mustache, that works without JavaScript; `Web/static/site.js` only
/// enhances it (live search, keys, favourites without a reload, batch loading). docs/web.md.
struct WebPages: Sendable {
    let templates: MustacheLibrary
    let served: ServedIndex
    let isReadOnly: Bool
    /// The index the request under way answers from.
    var index: OpenIndex { served.generation.index }
    var library: Library { index.library }

    init(served: ServedIndex, isReadOnly: Bool) {
        // They come with the build; without them every page is a 500 (the log says which).
        self.templates = (try? Self.loadTemplates()) ?? MustacheLibrary()
        self.served = served
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
        router.get("/identify") { request, _ in try await render(request) { .identify(IdentifyView()) } }
        router.post("/identify") { request, _ in try await render(request) { try await identify(request) } }
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

        static func identify(_ view: IdentifyView, status: HTTPResponse.Status = .ok) -> Outcome {
            .page(template: "identify", title: "Which xkcd is this?", status: status, content: view)
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
            let query = request.uri.path == "/search" ? sanitized(request.uri.queryParameters.get("q") ?? "") : ""
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
        // As the search box shows it: no control character reaches the page.
        let query = sanitized(parameters.get("q") ?? "")
        guard !query.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .page(template: "search", title: "Search", content: SearchView.empty)
        }
        // A page number the page cannot read is the first page: links make them, not people.
        let page = Int(parameters.get("page") ?? "1").map { max(1, $0) } ?? 1
        do {
            let search = try SearchRequest(
                text: query, limit: Self.batchSize, page: page, isExact: parameters.get("exact") == "1")
            var view = SearchView(try search.run(in: index))
            view.isExact = search.isExact
            return .page(template: "search", title: "\(query) – search", content: view)
        } catch  where ErrorClass(of: error).kind == .invalidInput {
            // Said in the form, which keeps the query to correct.
            return .page(
                template: "search", title: "Search", status: .badRequest,
                content: SearchView(problem: String(describing: error)))
        }
    }

    /// The passage form posted: the comics that fit it, with why. A passage over
    /// ``SearchEngine/maximumPassageLength`` is cut at a sentence end, and the page says so, as
    /// the CLI does. Posted rather than put in the address, which a paragraph would outgrow.
    private func relevant(_ request: Request) async throws -> Outcome {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: SearchRoutes.maximumRelevantBody)
        } catch is NIOTooManyBytesError {
            return .relevant(
                RelevantView(problem: "the passage is far over \(RelevantRequest.maximumLength) bytes"),
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
            let relevant = try RelevantRequest(passage: text, limit: Self.batchSize)
            return .relevant(RelevantView(try relevant.run(in: index)))
        } catch let error as SearchError {
            return .relevant(RelevantView(passage: text, problem: error.description), status: .badRequest)
        }
    }

    /// The upload form posted without JavaScript (`multipart/form-data`): the comics the image
    /// may show. With JavaScript the page sends the image to `POST /api/identify` instead.
    private func identify(_ request: Request) async throws -> Outcome {
        let body: ByteBuffer
        do {
            // The image's limit, and room for the form's own lines around it.
            body = try await request.body.collect(upTo: IdentifyRequest.maximumBytes + 64 * 1024)
        } catch is NIOTooManyBytesError {
            return .identify(
                IdentifyView(problem: "the image is over \(IdentifyRequest.maximumBytes >> 20) MB"),
                status: .contentTooLarge)
        }
        guard let image = UploadForm.image(in: body, contentType: request.headers[.contentType]) else {
            return .identify(IdentifyView(problem: "choose an image first"), status: .badRequest)
        }
        do {
            let identify = try IdentifyRequest(image: image, limit: 10)
            let index = self.index
            return .identify(IdentifyView(try await offTheTaskPool { try identify.run(in: index) }))
        } catch  where ErrorClass(of: error).kind == .invalidInput {
            let status: HTTPResponse.Status =
                ErrorClass(of: error).code == "image-too-large" ? .contentTooLarge : .badRequest
            return .identify(IdentifyView(problem: String(describing: error)), status: status)
        }
    }

    struct RelevantForm: Decodable {
        var text: String?
    }

    private func comic(_ text: String) throws -> Outcome {
        // A page at the top level that names no comic (`/robots.txt`, `/index.html`) is no page
        // of this site: 404, as the API says of a route it does not have.
        guard let request = try? ComicRequest(comic: text) else { throw APIError.notFound("no such page") }
        switch request.comic {
        case .random, .latest, nil: return .redirect("/\(try library.resolve(request.comic ?? .latest))")
        case .number: break
        }
        let page = try request.run(in: index)
        return .page(template: "comic", title: "#\(page.comic.id): \(page.comic.title)", content: try comicView(page))
    }

    private func favourites(tag: String?) throws -> Outcome {
        let list = try FavouriteListRequest(tag: tag.flatMap { $0.isEmpty ? nil : $0 })
        let tag = list.tag
        let entries = try list.run(in: index).map { entry in
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
        .page(template: "about", title: "About", content: AboutView(try StatsRequest().run(in: index)))
    }

    /// The no-JavaScript favourite toggle: a form posted by the comic's own page. Same-origin only,
    /// by the rule of the favourites API (``FavouriteRoutes.isSameOrigin(_:)``), so that another site's
    /// form cannot change the favourites; then back to the comic (303).
    private func toggleFavourite(_ request: Request, context: BasicRequestContext) async throws -> Outcome {
        guard FavouriteRoutes.isSameOrigin(request) else {
            return .page(
                template: "error", title: "Refused", status: .forbidden,
                content: ErrorView(message: "favourites can be changed from this server's own pages only"))
        }
        guard !isReadOnly else {
            return .page(
                template: "error", title: "Refused", status: .forbidden,
                content: ErrorView(message: "this server is read-only: favourites cannot be changed"))
        }
        // By number only, as the API takes favourites: `latest` would change another comic than
        // the page showed once a new one is indexed.
        guard case .number(let number)? = try? ComicReference(parsing: try context.parameters.require("comic")) else {
            throw APIError.notFound("no such page")
        }
        let reference = ComicReference.number(number)
        // A form of one button and a tags field: 16 kB is plenty.
        let body = try await request.body.collect(upTo: 16_384)
        guard let form = try? URLEncodedFormDecoder().decode(FavouriteForm.self, from: String(buffer: body)),
            let action = FavouriteForm.actions[form.action]
        else {
            throw APIError.badRequest("the form cannot be read")
        }
        let tags = (form.tags ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        let change = try FavouriteChange(action, comic: reference, tags: tags)
        _ = try change.run(in: index)
        return .redirect("/\(try library.resolve(reference))")
    }

    struct FavouriteForm: Decodable {
        var action: String
        var tags: String?

        /// The form's buttons; any other action is a form this site did not make.
        static let actions: [String: FavouriteChange.Action] = ["add": .add, "remove": .remove]
    }

    // MARK: Views

    private func comicView(_ page: ComicPage) throws -> ComicView {
        let id = page.comic.id
        let related = try RelatedRequest(comic: .number(id)).run(in: index).related.map { comic in
            ComicView.Related(
                num: comic.id, title: comic.title, why: comic.reasons.map(\.rawValue).joined(separator: ", "))
        }
        return ComicView(
            page: page, cache: ImageCache(directory: index.services.paths.imagesDirectory),
            neighbours: try library.neighbours(of: id), related: related, isReadOnly: isReadOnly)
    }
}
