import Foundation

/// One explain xkcd page as the MediaWiki `action=parse` API returns it.
public struct ExplainAPIPage: Sendable, Hashable {
    /// The page name, "327: Exploits of a Mom".
    public var title: String
    /// The rendered page, `<div class="mw-parser-output">…`.
    public var html: String
    /// Category names with spaces, "All comics" (the API writes "All_comics").
    public var categories: [String]
    public var revision: Int?

    public init(title: String, html: String, categories: [String], revision: Int?) {
        self.title = title
        self.html = html
        self.categories = categories
        self.revision = revision
    }
}

/// Decodes explain xkcd API responses
/// (`/wiki/api.php?action=parse&page=327&redirects=1&prop=text%7Ccategories%7Crevid%7Cdisplaytitle&format=json&formatversion=2`).
///
/// Related MediaWiki documentation: <https://www.mediawiki.org/wiki/API:Parsing_wikitext>
public enum ExplainAPI: Sendable {
    /// The query items of a parse request for comic `id`, in the order the wiki's own links use.
    public static func queryItems(forComic id: Int) -> [URLQueryItem] {
        [
            URLQueryItem(name: "action", value: "parse"),
            URLQueryItem(name: "page", value: String(id)),
            URLQueryItem(name: "redirects", value: "1"),
            URLQueryItem(name: "prop", value: "text|categories|revid|displaytitle"),
            URLQueryItem(name: "format", value: "json"),
            URLQueryItem(name: "formatversion", value: "2"),
        ]
    }

    /// Decodes one response.
    ///
    /// - Returns: The page, or nil when the wiki answered `{"error":{"code":"missingtitle",…}}`
    ///   (the explanation is not written yet).
    /// - Throws: ``FetchError/apiError(source:code:info:)`` for any other error object,
    ///   ``FetchError/malformedJSON(source:detail:)`` for bytes that are not JSON.
    public static func decode(_ data: Data) throws(FetchError) -> ExplainAPIPage? {
        try decode(data, source: "explain xkcd API")
    }

    /// Decodes one response; `source` (a URL or a file path) goes into error messages.
    public static func decode(_ data: Data, source: String) throws(FetchError) -> ExplainAPIPage? {
        let dto: ResponseDTO
        do {
            dto = try JSONDecoder().decode(ResponseDTO.self, from: data)
        } catch let error as DecodingError {
            throw jsonError(error, source: source)
        } catch {
            throw .malformedJSON(source: source, detail: "\(error)")
        }
        if let error = dto.error {
            if error.code == "missingtitle" { return nil }
            throw .apiError(source: source, code: error.code, info: error.info ?? "")
        }
        guard let parse = dto.parse else {
            throw .unexpectedJSON(source: source, detail: "neither \"parse\" nor \"error\" at the top level")
        }
        return ExplainAPIPage(
            title: parse.title,
            html: parse.text,
            categories: (parse.categories ?? []).map { $0.category.replacingOccurrences(of: "_", with: " ") },
            revision: parse.revid)
    }

    /// True for error codes that mean "try again later" rather than "this request is wrong".
    static func isTransient(code: String) -> Bool {
        ["maxlag", "ratelimited", "readonly", "internal_api_error_DBQueryError"].contains(code)
    }

    private struct ResponseDTO: Decodable {
        var parse: ParseDTO?
        var error: ErrorDTO?
    }

    private struct ParseDTO: Decodable {
        var title: String
        var revid: Int?
        var text: String
        var categories: [CategoryDTO]?
    }

    private struct CategoryDTO: Decodable {
        var category: String
    }

    private struct ErrorDTO: Decodable {
        var code: String
        var info: String?
    }
}
