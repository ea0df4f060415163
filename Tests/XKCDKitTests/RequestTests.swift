import Testing
import XKCDKit
import XKCDStore

/// The request types' own rules, one table each: their defaults, their limits and what they
/// refuse, with no index (a request checks its parameters before anything is read).
@Suite struct RequestTests {
    /// Parameters by name, as a URL's query gives them.
    struct Given: RequestParameters {
        var values: [String: String]

        init(_ values: [String: String]) {
            self.values = values
        }

        func value(named name: String) -> String? {
            values[name]
        }
    }

    @Test func searchDefaults() throws {
        let search = try SearchRequest(text: "bobby")
        #expect(search.limit == 10 && search.page == 1 && !search.isExact)
        let read = try SearchRequest(reading: Given(["q": "bobby"]))
        #expect(read == search)
    }

    @Test(arguments: [
        (["q": "a", "limit": "0"], RequestError.outOfRange(.limit, value: "0", allowed: "between 1 and 1000")),
        (["q": "a", "limit": "1001"], .outOfRange(.limit, value: "1001", allowed: "between 1 and 1000")),
        (["q": "a", "limit": "ten"], .outOfRange(.limit, value: "ten", allowed: "between 1 and 1000")),
        (["q": "a", "page": "0"], .outOfRange(.page, value: "0", allowed: "1 or more")),
        (["q": "a", "exact": "maybe"], .outOfRange(.exact, value: "maybe", allowed: "1, true, 0 or false")),
        ([:], .missing(.query)),
        (["q": ""], .missing(.query)),
    ])
    func searchRefuses(_ parameters: [String: String], _ expected: RequestError) {
        #expect(throws: expected) { try SearchRequest(reading: Given(parameters)) }
    }

    @Test(arguments: [
        (["q": "a", "limit": "1000", "page": "7", "exact": ""], 1000, 7, true),
        (["q": "a", "limit": "1", "exact": "false"], 1, 1, false),
        (["q": "a", "exact": "true"], 10, 1, true),
        (["q": "a", "exact": "0"], 10, 1, false),
    ])
    func searchTakes(_ parameters: [String: String], limit: Int, page: Int, isExact: Bool) throws {
        let search = try SearchRequest(reading: Given(parameters))
        #expect(search.limit == limit && search.page == page && search.isExact == isExact)
    }

    @Test func aSearchOfNothingIsTheEnginesToRefuseInItsOwnWords() throws {
        // An empty query typed on the command line is a query with nothing to search for, as the
        // engine says; only a URL's `q` missing or empty is a parameter missing.
        #expect(try SearchRequest(text: "").text == "")
    }

    @Test func relevantLimitsAndLength() throws {
        #expect(try RelevantRequest(passage: "a build that takes forever").limit == RelevantRequest.defaultLimit)
        #expect(try RelevantRequest(passage: "a build", reading: Given([:])).limit == SearchRequest.defaultLimit)
        let long = String(repeating: "word ", count: RelevantRequest.maximumLength / 5 + 1)
        #expect(throws: RequestError.tooLong(.text, length: long.utf8.count, limit: RelevantRequest.maximumLength)) {
            try RelevantRequest(passage: long, reading: Given([:]))
        }
        // The command line and the page read the head of a long passage instead.
        #expect(try RelevantRequest(passage: long).passage == long)
        #expect(throws: RequestError.outOfRange(.limit, value: "0", allowed: "between 1 and 1000")) {
            try RelevantRequest(passage: "a", limit: 0)
        }
    }

    @Test(arguments: [
        ("327", ComicReference?.some(.number(327))), ("#327", .number(327)), ("latest", .latest),
        ("random", .random), ("https://xkcd.com/327/", .number(327)),
    ])
    func comicsAreNamed(_ text: String, _ expected: ComicReference?) throws {
        #expect(try ComicRequest(comic: text).comic == expected)
        #expect(try RelatedRequest(comic: text).comic == expected)
    }

    @Test func comicsThatCannotBe() throws {
        #expect(throws: LibraryError.notANumber("abc")) { try ComicRequest(comic: "abc") }
        #expect(throws: LibraryError.belowFirst(0)) { try ComicRequest(comic: "0") }
        #expect(try ComicRequest(comic: nil).comic == nil, "the comic shown last")
        #expect(try ComicRequest(comic: "1", reading: Given(["explain": "1"])).withExplanation)
        #expect(throws: RequestError.outOfRange(.explain, value: "yes", allowed: "1, true, 0 or false")) {
            try ComicRequest(comic: "1", reading: Given(["explain": "yes"]))
        }
    }

    @Test func suggestionsOfNothingTyped() {
        #expect(SuggestRequest(reading: Given([:])).typed == "")
        #expect(SuggestRequest(reading: Given(["q": "bobby ta"])).typed == "bobby ta")
    }

    @Test func favouriteTagsAreCheckedAndStoredFormed() throws {
        let change = try FavouriteChange(.add, comic: .number(327), tags: ["SQL", "sql", " Security "])
        #expect(change.tags == ["sql", "security"])
        #expect(throws: LibraryError.invalidTag("two words", reason: "use one word of letters, digits, '-' and '_'")) {
            try FavouriteChange(.tag, comic: nil, tags: ["two words"])
        }
        #expect(try FavouriteListRequest(tag: nil).tag == nil)
        #expect(try FavouriteListRequest(tag: "Physics").tag == "physics")
        #expect(throws: LibraryError.invalidTag("", reason: "it is empty")) { try FavouriteListRequest(tag: "") }
    }

    /// The tag rule, which openapi.json's Tag pattern states: letters (L), marks (M), decimal
    /// digits (Nd), `-` and `_`, 1 to 40 of them, white space (Unicode's) around trimmed.
    @Test(arguments: [
        ("\u{3000}sql\u{85}", "sql"), ("tab\t", "tab"), ("ДОМ", "дом"), ("日本語", "日本語"), ("x_-1", "x_-1"),
        ("e\u{301}", "\u{e9}"), (String(repeating: "a", count: 40), String(repeating: "a", count: 40)),
    ])
    func tagsTaken(_ typed: String, _ stored: String) throws {
        #expect(try FavouriteListRequest(tag: typed).tag == stored)
    }

    @Test(arguments: [
        "\u{216B}",  // Ⅻ, a letter number (Nl): no letter
        "\u{24B6}",  // Ⓐ, a symbol
        "a\u{200B}",  // a zero-width space is no white space to trim
        "two words", "", " ", "a.b",
        String(repeating: "a", count: 41),
        String(repeating: " ", count: 60) + "a" + String(repeating: " ", count: 60),
    ])
    func tagsRefused(_ typed: String) {
        #expect(throws: LibraryError.self) { try FavouriteListRequest(tag: typed) }
    }

    @Test func statsNameThePathUnlessAsked() {
        #expect(!StatsRequest().namesFileOnly)
        #expect(StatsRequest(namesFileOnly: true).namesFileOnly)
    }

    /// The one classification every front end maps from.
    @Test func errorsAreClassified() {
        let table: [(any Error, ErrorKind, String)] = [
            (RequestError.missing(.query), .invalidInput, "missing-query"),
            (RequestError.outOfRange(.limit, value: "0", allowed: "x"), .invalidInput, "bad-parameter"),
            (RequestError.tooLong(.text, length: 9, limit: 8), .invalidInput, "passage-too-large"),
            (SearchError.nothingToSearch, .invalidInput, "unreadable-query"),
            (QueryError.unclosedQuote(column: 1), .invalidInput, "unreadable-query"),
            (LibraryError.notANumber("x"), .invalidInput, "bad-comic"),
            (LibraryError.invalidTag("a b", reason: "r"), .invalidInput, "bad-tag"),
            (LibraryError.notIndexed(5), .notFound, "not-found"),
            (LibraryError.emptyIndex, .notFound, "not-found"),
            (StoreError.readOnly, .readOnly, "read-only"),
            (StoreError.busy, .busy, "busy"),
            (StoreError.beingBuilt(path: "/x"), .unavailable(retryAfter: .seconds(5)), "index-building"),
            (StoreError.damaged(path: "/x"), .unavailable(retryAfter: nil), "index-unavailable"),
            (IndexFileError.missing(path: "/x"), .unavailable(retryAfter: nil), "index-unavailable"),
            (StoreError.failed(reason: "disk I/O error"), .internal, "internal"),
        ]
        for (error, kind, code) in table {
            #expect(ErrorClass(of: error).kind == kind, "\(error)")
            #expect(ErrorClass(of: error).code == code, "\(error)")
        }
        #expect(ErrorClass(of: StoreError.emptyFile(path: "/x")).indexProblem == .emptyFile(path: "/x"))
        #expect(ErrorClass(of: StoreError.rankingDataDamaged).indexProblem == .rankingDataDamaged)
    }

    @Test func requestErrorsSayWhatIsWrongByTheParametersName() {
        #expect(RequestError.missing(.query).description == "the query parameter q is missing")
        #expect(
            RequestError.outOfRange(.limit, value: "0", allowed: "between 1 and 1000").description
                == "limit must be between 1 and 1000, not '0'")
        #expect(
            RequestError.tooLong(.text, length: 70_000, limit: 65_536).description
                == "the passage is over 65536 bytes: send at most that much")
    }
}
