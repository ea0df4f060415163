import Testing
import XKCDModel
import _XKCDTestSupport

@testable import XKCDQuery

// MARK: - Builders

func term(_ word: String, _ field: SearchField? = nil) -> TextQuery { .term(word, field: field) }
func prefix(_ word: String, _ field: SearchField? = nil) -> TextQuery { .prefix(word, field: field) }
func phrase(_ words: String..., field: SearchField? = nil) -> TextQuery { .phrase(words, field: field) }
func day(_ year: Int, _ month: Int, _ day: Int) -> ComicDate { ComicDate(year: year, month: month, day: day) }
func dates(_ lower: ComicDate?, _ upper: ComicDate?) -> Bounds<ComicDate> { Bounds(lower: lower, upper: upper) }
func text(_ query: TextQuery) -> SearchQuery { SearchQuery(text: query) }

struct ParseCase: Sendable, CustomTestStringConvertible {
    var input: String
    var expected: SearchQuery
    /// False when the canonical form is equivalent but not equal (an `OR` kept as a word).
    var roundTrips = true
    var testDescription: String { "parse(\(input.debugDescription))" }
}

struct ErrorCase: Sendable, CustomTestStringConvertible {
    var input: String
    var expected: QueryError
    var message: String
    var testDescription: String { "parse(\(input.debugDescription)) throws" }
}

// MARK: - Tables

let languageCases: [ParseCase] = [
    // Words, phrases, prefixes, exclusions.
    ParseCase(input: "tables", expected: text(term("tables"))),
    ParseCase(input: "bobby tables", expected: text(.and([term("bobby"), term("tables")]))),
    ParseCase(input: "  bobby\t\ntables  ", expected: text(.and([term("bobby"), term("tables")]))),
    ParseCase(input: "the a of", expected: text(.and([term("the"), term("a"), term("of")]))),
    ParseCase(input: #""bobby tables""#, expected: text(phrase("bobby", "tables"))),
    ParseCase(input: #""  bobby   tables ""#, expected: text(phrase("bobby", "tables"))),
    ParseCase(input: "\u{201C}bobby tables\u{201D}", expected: text(phrase("bobby", "tables"))),
    ParseCase(input: #""(a OR -b)""#, expected: text(phrase("(a", "OR", "-b)"))),
    ParseCase(input: "tabl*", expected: text(prefix("tabl"))),
    ParseCase(input: "tabl**", expected: text(prefix("tabl"))),
    ParseCase(input: "C++*", expected: text(prefix("C++"))),
    ParseCase(input: "-sql bobby", expected: text(.and([.not(term("sql")), term("bobby")]))),
    ParseCase(input: #"bobby -"drop table""#, expected: text(.and([term("bobby"), .not(phrase("drop", "table"))]))),
    ParseCase(input: "bobby -tabl*", expected: text(.and([term("bobby"), .not(prefix("tabl"))]))),
    ParseCase(input: "a -(b OR c)", expected: text(.and([term("a"), .not(.or([term("b"), term("c")]))]))),
    ParseCase(input: "a -(b -c)", expected: text(.and([term("a"), .not(.and([term("b"), .not(term("c"))]))]))),
    // OR and grouping.
    ParseCase(input: "sql OR database", expected: text(.or([term("sql"), term("database")]))),
    ParseCase(input: "sql | database", expected: text(.or([term("sql"), term("database")]))),
    ParseCase(input: "a OR b OR c", expected: text(.or([term("a"), term("b"), term("c")]))),
    ParseCase(input: "a OR (b OR c)", expected: text(.or([term("a"), term("b"), term("c")]))),
    ParseCase(input: "bobby sql OR db", expected: text(.and([term("bobby"), .or([term("sql"), term("db")])]))),
    ParseCase(input: "(a OR b) c", expected: text(.and([.or([term("a"), term("b")]), term("c")]))),
    ParseCase(input: "(a b) OR c", expected: text(.or([.and([term("a"), term("b")]), term("c")]))),
    ParseCase(input: "(a -b) OR c", expected: text(.or([.and([term("a"), .not(term("b"))]), term("c")]))),
    ParseCase(input: #""a b" OR c*"#, expected: text(.or([phrase("a", "b"), prefix("c")]))),
    ParseCase(input: "((a))", expected: text(term("a"))),
    ParseCase(input: "a (b c)", expected: text(.and([term("a"), term("b"), term("c")]))),
    ParseCase(input: "a () b", expected: text(.and([term("a"), term("b")]))),
    ParseCase(input: #"a "" b"#, expected: text(.and([term("a"), term("b")]))),
    // Field scopes.
    ParseCase(input: "title:tables", expected: text(term("tables", .title))),
    ParseCase(input: "Title:tables", expected: text(term("tables", .title))),
    ParseCase(input: #"title:"bobby tables""#, expected: text(phrase("bobby", "tables", field: .title))),
    ParseCase(input: "alt:foo*", expected: text(prefix("foo", .alt))),
    ParseCase(
        input: "transcript:beret explanation:hat",
        expected: text(.and([term("beret", .transcript), term("hat", .explanation)]))),
    ParseCase(input: "-title:foo bar", expected: text(.and([.not(term("foo", .title)), term("bar")]))),
    ParseCase(input: #"-alt:"a b" c"#, expected: text(.and([.not(phrase("a", "b", field: .alt)), term("c")]))),
    ParseCase(input: "title:(a OR b)", expected: text(.or([term("a", .title), term("b", .title)]))),
    ParseCase(input: "title:(a alt:b) c", expected: text(.and([term("a", .title), term("b", .alt), term("c")]))),
    ParseCase(
        input: "-title:(a b) c", expected: text(.and([.not(.and([term("a", .title), term("b", .title)])), term("c")]))),
    ParseCase(input: "title:title:x", expected: text(term("title:x", .title))),
    ParseCase(input: "title:OR", expected: text(term("OR", .title)), roundTrips: false),
    // Numbers.
    ParseCase(input: "327", expected: SearchQuery(text: term("327"), exactComic: 327)),
    ParseCase(input: "#327", expected: SearchQuery(text: term("327"), exactComic: 327)),
    ParseCase(input: " #0327 ", expected: SearchQuery(text: term("327"), exactComic: 327)),
    ParseCase(input: "327 is:fav", expected: SearchQuery(text: term("327"), exactComic: 327, isFavourite: true)),
    ParseCase(input: "327 tables", expected: text(.and([term("327"), term("tables")]))),
    ParseCase(input: "#327 tables", expected: text(.and([term("#327"), term("tables")]))),
    ParseCase(input: "title:327", expected: text(term("327", .title))),
    ParseCase(input: "-327", expected: text(.not(term("327")))),
    ParseCase(input: "1234567890", expected: text(term("1234567890"))),
    ParseCase(input: "num:327", expected: SearchQuery(numberRange: Bounds(exactly: 327))),
    ParseCase(input: "num:#327", expected: SearchQuery(numberRange: Bounds(exactly: 327))),
    ParseCase(input: "num:100..200", expected: SearchQuery(numberRange: Bounds(lower: 100, upper: 200))),
    ParseCase(input: "num:1000..", expected: SearchQuery(numberRange: Bounds(lower: 1000, upper: nil))),
    ParseCase(input: "num:..99", expected: SearchQuery(numberRange: Bounds(lower: nil, upper: 99))),
    ParseCase(input: "num:5..5", expected: SearchQuery(numberRange: Bounds(exactly: 5))),
    ParseCase(input: "num:100..200 num:150..", expected: SearchQuery(numberRange: Bounds(lower: 150, upper: 200))),
    // Dates.
    ParseCase(input: "year:2010", expected: SearchQuery(dateRange: dates(day(2010, 1, 1), day(2010, 12, 31)))),
    ParseCase(input: "year:2008..2010", expected: SearchQuery(dateRange: dates(day(2008, 1, 1), day(2010, 12, 31)))),
    ParseCase(input: "year:2008..", expected: SearchQuery(dateRange: dates(day(2008, 1, 1), nil))),
    ParseCase(input: "date:2010-03-05", expected: SearchQuery(dateRange: dates(day(2010, 3, 5), day(2010, 3, 5)))),
    ParseCase(input: "date:2010-3-5", expected: SearchQuery(dateRange: dates(day(2010, 3, 5), day(2010, 3, 5)))),
    ParseCase(input: "date:2010-03..2011", expected: SearchQuery(dateRange: dates(day(2010, 3, 1), day(2011, 12, 31)))),
    ParseCase(input: "date:2012-02", expected: SearchQuery(dateRange: dates(day(2012, 2, 1), day(2012, 2, 29)))),
    ParseCase(input: "date:1900-02", expected: SearchQuery(dateRange: dates(day(1900, 2, 1), day(1900, 2, 28)))),
    ParseCase(input: "date:2000-02-29", expected: SearchQuery(dateRange: dates(day(2000, 2, 29), day(2000, 2, 29)))),
    ParseCase(input: "date:..2010-06", expected: SearchQuery(dateRange: dates(nil, day(2010, 6, 30)))),
    ParseCase(input: "date:2010..2010-03", expected: SearchQuery(dateRange: dates(day(2010, 1, 1), day(2010, 3, 31)))),
    ParseCase(input: "before:2010", expected: SearchQuery(dateRange: dates(nil, day(2009, 12, 31)))),
    ParseCase(input: "before:2010-03", expected: SearchQuery(dateRange: dates(nil, day(2010, 2, 28)))),
    ParseCase(input: "before:2012-03-01", expected: SearchQuery(dateRange: dates(nil, day(2012, 2, 29)))),
    ParseCase(input: "before:2010-03-05", expected: SearchQuery(dateRange: dates(nil, day(2010, 3, 4)))),
    ParseCase(input: "after:2010", expected: SearchQuery(dateRange: dates(day(2011, 1, 1), nil))),
    ParseCase(input: "after:2010-02", expected: SearchQuery(dateRange: dates(day(2010, 3, 1), nil))),
    ParseCase(input: "after:2010-04-30", expected: SearchQuery(dateRange: dates(day(2010, 5, 1), nil))),
    ParseCase(
        input: "after:2009 before:2011", expected: SearchQuery(dateRange: dates(day(2010, 1, 1), day(2010, 12, 31)))),
    ParseCase(
        input: "year:2010 date:2010-06..", expected: SearchQuery(dateRange: dates(day(2010, 6, 1), day(2010, 12, 31)))),
    // Favourites, tags, order.
    ParseCase(input: "is:fav", expected: SearchQuery(isFavourite: true)),
    ParseCase(input: "IS:Favourite", expected: SearchQuery(isFavourite: true)),
    ParseCase(input: "is:favorites", expected: SearchQuery(isFavourite: true)),
    ParseCase(
        input: "tag:physics tag:\"two\u{0}  words \" tag:physics",
        expected: SearchQuery(tags: ["physics", "two words"])),
    ParseCase(input: "sort:date", expected: SearchQuery(sort: .dateAscending)),
    ParseCase(input: "sort:-date", expected: SearchQuery(sort: .dateDescending)),
    ParseCase(input: "sort:num", expected: SearchQuery(sort: .numberAscending)),
    ParseCase(input: "sort:-num", expected: SearchQuery(sort: .numberDescending)),
    ParseCase(input: "sort:-date sort:relevance", expected: SearchQuery()),
    ParseCase(input: "sort:-date SORT:NUM", expected: SearchQuery(sort: .numberAscending)),
    ParseCase(input: "bobby sort:-date", expected: SearchQuery(text: term("bobby"), sort: .dateDescending)),
    ParseCase(
        input: #"title:"bobby tables" OR sql -drop year:2007.. is:fav tag:db sort:-date"#,
        expected: SearchQuery(
            text: .and([.or([phrase("bobby", "tables", field: .title), term("sql")]), .not(term("drop"))]),
            dateRange: dates(day(2007, 1, 1), nil), isFavourite: true, tags: ["db"], sort: .dateDescending)),
    // Empty queries and exclusions only.
    ParseCase(input: "", expected: SearchQuery()),
    ParseCase(input: " \t\n ", expected: SearchQuery()),
    ParseCase(input: #""""#, expected: SearchQuery()),
    ParseCase(input: "()", expected: SearchQuery()),
    ParseCase(input: "-foo", expected: text(.not(term("foo")))),
    ParseCase(input: "-foo -bar", expected: text(.and([.not(term("foo")), .not(term("bar"))]))),
    ParseCase(input: "(-foo -bar)", expected: text(.and([.not(term("foo")), .not(term("bar"))]))),
    ParseCase(input: "is:fav -physics", expected: SearchQuery(text: .not(term("physics")), isFavourite: true)),
]

/// Anything that is not syntax is searched as words, kept as typed.
let wordCases: [ParseCase] = [
    ParseCase(input: "c++", expected: text(term("c++"))),
    ParseCase(input: "don't", expected: text(term("don't"))),
    ParseCase(input: "AT&T", expected: text(term("AT&T"))),
    ParseCase(input: "50%", expected: text(term("50%"))),
    ParseCase(input: "NEAR", expected: text(term("NEAR"))),
    ParseCase(input: "a NEAR b", expected: text(.and([term("a"), term("NEAR"), term("b")]))),
    ParseCase(input: "a AND b", expected: text(.and([term("a"), term("AND"), term("b")]))),
    ParseCase(input: "a NOT b", expected: text(.and([term("a"), term("NOT"), term("b")]))),
    ParseCase(input: "a or b", expected: text(.and([term("a"), term("or"), term("b")]))),
    ParseCase(input: "OR", expected: text(term("OR")), roundTrips: false),
    ParseCase(input: "|", expected: text(term("|")), roundTrips: false),
    ParseCase(input: "OR a", expected: text(.and([term("OR"), term("a")])), roundTrips: false),
    ParseCase(input: "a OR", expected: text(.and([term("a"), term("OR")])), roundTrips: false),
    ParseCase(input: "a OR OR b", expected: text(.and([term("a"), .or([term("OR"), term("b")])])), roundTrips: false),
    ParseCase(input: "(a OR) b", expected: text(.and([term("a"), term("OR"), term("b")])), roundTrips: false),
    ParseCase(input: "-OR", expected: text(.not(term("OR"))), roundTrips: false),
    ParseCase(input: "a|b", expected: text(term("a|b"))),
    ParseCase(input: "cat 🐈‍⬛ 👍🏽", expected: text(.and([term("cat"), term("🐈‍⬛"), term("👍🏽")]))),
    ParseCase(input: "e-mail", expected: text(term("e-mail"))),
    ParseCase(input: "-", expected: text(term("-"))),
    ParseCase(input: "a - b", expected: text(.and([term("a"), term("-"), term("b")]))),
    ParseCase(input: "--x", expected: text(term("--x"))),
    ParseCase(input: "(a -)", expected: text(.and([term("a"), term("-")]))),
    ParseCase(input: "*", expected: text(term("*"))),
    ParseCase(input: "**", expected: text(term("**"))),
    ParseCase(input: "*foo", expected: text(term("*foo"))),
    ParseCase(input: "fo*o", expected: text(term("fo*o"))),
    ParseCase(input: "^", expected: text(term("^"))),
    ParseCase(input: "a^b", expected: text(term("a^b"))),
    ParseCase(input: ":", expected: text(term(":"))),
    ParseCase(input: ":foo a:", expected: text(.and([term(":foo"), term("a:")]))),
    ParseCase(input: "foo:bar", expected: text(term("foo:bar"))),
    // The address of a comic names it (see `sentenceCases` for more).
    ParseCase(input: "http://xkcd.com/327", expected: SearchQuery(text: term("327"), exactComic: 327)),
    ParseCase(input: "http://example.com/327", expected: text(term("http://example.com/327"))),
    ParseCase(input: "title:", expected: text(term("title:"))),
    ParseCase(input: "title: tables", expected: text(.and([term("title:"), term("tables")]))),
    ParseCase(input: "title: lisp", expected: text(.and([term("title:"), term("lisp")]))),
    ParseCase(input: "#", expected: text(term("#"))),
    ParseCase(input: "#abc", expected: text(term("#abc"))),
    ParseCase(input: "f(x)", expected: text(.and([term("f"), term("x")]))),
    ParseCase(input: #"5"x y""#, expected: text(.and([term("5"), phrase("x", "y")]))),
    ParseCase(input: "tables\u{0}sql\u{1B}db", expected: text(.and([term("tables"), term("sql"), term("db")]))),
    ParseCase(input: "cafe\u{301}", expected: text(term("cafe\u{301}"))),
    ParseCase(input: "\u{301}", expected: SearchQuery()),
    ParseCase(input: "a\u{0}\u{301}b \u{200D}c", expected: text(.and([term("a"), term("b"), term("c")]))),
    ParseCase(input: "naïve résumé", expected: text(.and([term("naïve"), term("résumé")]))),
]

let errorCases: [ErrorCase] = [
    ErrorCase(input: #""bobby"#, expected: .unclosedQuote(column: 1), message: "unclosed quote starting at column 1"),
    ErrorCase(
        input: "bobby tag:",
        expected: .invalidValue(token: "tag:", column: 7, problem: "needs a value, as in tag:physics"),
        message: "needs a value, as in tag:physics"),
    ErrorCase(
        input: "is:", expected: .invalidValue(token: "is:", column: 1, problem: "needs a value, as in is:fav"),
        message: "is:fav"),
    ErrorCase(
        input: #"title:"bobby tables"#, expected: .unclosedQuote(column: 7),
        message: "unclosed quote starting at column 7"),
    ErrorCase(input: #"a -"b"#, expected: .unclosedQuote(column: 4), message: "unclosed quote starting at column 4"),
    ErrorCase(
        input: "(a b", expected: .unclosedParenthesis(column: 1), message: "unclosed parenthesis opened at column 1"),
    ErrorCase(
        input: "a (b (c)", expected: .unclosedParenthesis(column: 3), message: "unclosed parenthesis opened at column 3"
    ),
    ErrorCase(
        input: "title:(a", expected: .unclosedParenthesis(column: 1), message: "unclosed parenthesis opened at column 1"
    ),
    ErrorCase(input: "a b)", expected: .unmatchedParenthesis(column: 4), message: "unmatched ')' at column 4"),
    ErrorCase(input: ":)", expected: .unmatchedParenthesis(column: 2), message: "unmatched ')' at column 2"),
    ErrorCase(input: "(a)) b", expected: .unmatchedParenthesis(column: 4), message: "unmatched ')' at column 4"),
    ErrorCase(
        input: String(repeating: "(", count: 65) + "a" + String(repeating: ")", count: 65),
        expected: .tooDeeplyNested(column: 65), message: "too deeply nested parentheses at column 65"),
    ErrorCase(
        input: "num:9..3", expected: .reversedRange(token: "num:9..3", column: 1, lower: "9", upper: "3"),
        message: "num:9..3 at column 1: the range is reversed (9 > 3)"),
    ErrorCase(
        input: "bobby num:abc",
        expected: .invalidValue(
            token: "num:abc", column: 7, problem: "expected a comic number like 327 or a range like 100..200"),
        message: "num:abc at column 7: expected a comic number"),
    ErrorCase(
        input: "num:..",
        expected: .invalidValue(
            token: "num:..", column: 1, problem: "expected a comic number like 327 or a range like 100..200"),
        message: "num:.. at column 1"),
    ErrorCase(
        input: "num:1..2..3",
        expected: .invalidValue(
            token: "num:1..2..3", column: 1, problem: "expected a comic number like 327 or a range like 100..200"),
        message: "num:1..2..3 at column 1"),
    ErrorCase(
        input: "num:-5",
        expected: .invalidValue(
            token: "num:-5", column: 1, problem: "expected a comic number like 327 or a range like 100..200"),
        message: "num:-5 at column 1"),
    ErrorCase(
        input: "num:12345678901234567890",
        expected: .invalidValue(
            token: "num:12345678901234567890", column: 1,
            problem: "expected a comic number like 327 or a range like 100..200"),
        message: "at column 1"),
    ErrorCase(
        input: "date:2010-13",
        expected: .invalidValue(token: "date:2010-13", column: 1, problem: "month 13 doesn't exist"),
        message: "date:2010-13 at column 1: month 13 doesn't exist"),
    ErrorCase(
        input: "x date:2010-02-30",
        expected: .invalidValue(token: "date:2010-02-30", column: 3, problem: "2010-02 has no day 30"),
        message: "date:2010-02-30 at column 3: 2010-02 has no day 30"),
    ErrorCase(
        input: "date:2011-02-29",
        expected: .invalidValue(token: "date:2011-02-29", column: 1, problem: "2011-02 has no day 29"),
        message: "2011-02 has no day 29"),
    ErrorCase(
        input: "date:2010-00",
        expected: .invalidValue(token: "date:2010-00", column: 1, problem: "month 0 doesn't exist"),
        message: "month 0 doesn't exist"),
    ErrorCase(
        input: "date:march",
        expected: .invalidValue(
            token: "date:march", column: 1, problem: "expected a date like 2010, 2010-03 or 2010-03-05"),
        message: "date:march at column 1: expected a date"),
    ErrorCase(
        input: "year:99999",
        expected: .invalidValue(token: "year:99999", column: 1, problem: "expected a 4-digit year like 2010"),
        message: "year:99999 at column 1: expected a 4-digit year"),
    ErrorCase(
        input: "year:0000",
        expected: .invalidValue(token: "year:0000", column: 1, problem: "expected a 4-digit year like 2010"),
        message: "year:0000"),
    ErrorCase(
        input: "year:2011..2010",
        expected: .reversedRange(token: "year:2011..2010", column: 1, lower: "2011", upper: "2010"),
        message: "year:2011..2010 at column 1: the range is reversed (2011 > 2010)"),
    ErrorCase(
        input: "date:2010-05..2010-04-30",
        expected: .reversedRange(token: "date:2010-05..2010-04-30", column: 1, lower: "2010-05", upper: "2010-04-30"),
        message: "the range is reversed (2010-05 > 2010-04-30)"),
    ErrorCase(
        input: "before:2010..2011",
        expected: .invalidValue(
            token: "before:2010..2011", column: 1, problem: "expected one date like 2010, 2010-03 or 2010-03-05"),
        message: "before:2010..2011 at column 1: expected one date"),
    ErrorCase(
        input: "after:2010-02-31",
        expected: .invalidValue(token: "after:2010-02-31", column: 1, problem: "2010-02 has no day 31"),
        message: "2010-02 has no day 31"),
    ErrorCase(
        input: "is:cool", expected: .invalidValue(token: "is:cool", column: 1, problem: "expected is:fav"),
        message: "is:cool at column 1: expected is:fav"),
    ErrorCase(
        input: "sort:random",
        expected: .invalidValue(
            token: "sort:random", column: 1,
            problem: "expected sort:relevance, sort:date, sort:-date, sort:num or sort:-num"),
        message: "sort:random at column 1: expected sort:relevance"),
    ErrorCase(
        input: #"tag:"""#, expected: .invalidValue(token: #"tag:"""#, column: 1, problem: "expected a tag name"),
        message: "expected a tag name"),
    ErrorCase(
        input: "num:1..10 num:20..30", expected: .conflictingFilter(token: "num:20..30", column: 11),
        message: "num:20..30 at column 11: no comic can also match the earlier filters of this kind"),
    ErrorCase(
        input: "year:2010 before:2010-01", expected: .conflictingFilter(token: "before:2010-01", column: 11),
        message: "before:2010-01 at column 11: no comic can also match"),
    ErrorCase(
        input: "(a year:2010)",
        expected: .misplaced(
            token: "year:2010", column: 4, problem: "filters apply to the whole query and can't be inside parentheses"),
        message: "year:2010 at column 4: filters apply to the whole query"),
    ErrorCase(
        input: "a OR is:fav",
        expected: .misplaced(
            token: "is:fav", column: 6, problem: "filters apply to the whole query and can't be part of an or"),
        message: "is:fav at column 6: filters apply to the whole query and can't be part of an or"),
    ErrorCase(
        input: "-is:fav", expected: .misplaced(token: "-is:fav", column: 1, problem: "filters can't be excluded"),
        message: "-is:fav at column 1: filters can't be excluded"),
    ErrorCase(
        input: "a OR -b", expected: .misplaced(token: "-b", column: 6, problem: "an exclusion can't be part of an or"),
        message: "-b at column 6: an exclusion can't be part of an or"),
    ErrorCase(
        input: "a OR (-b)", expected: .misplaced(token: "(", column: 6, problem: "an exclusion can't be part of an or"),
        message: "at column 6: an exclusion can't be part of an or"),
    ErrorCase(
        input: "x -(-a)",
        expected: .misplaced(token: "-(", column: 3, problem: "an exclusion must contain a word that isn't excluded"),
        message: "-( at column 3: an exclusion must contain a word that isn't excluded"),
]

// MARK: - Tests

@Suite struct QueryParserTests {
    let parser = QueryParser()

    @Test(arguments: languageCases + wordCases)
    func parsesToExpectedQuery(_ testCase: ParseCase) throws {
        let query = try parser.parse(testCase.input)
        #expect(query == testCase.expected, "got \(query.text.map(String.init(describing:)) ?? "nil")")
    }

    @Test(arguments: (languageCases + wordCases).filter(\.roundTrips))
    func canonicalFormParsesBackToTheSameQuery(_ testCase: ParseCase) throws {
        let query = try parser.parse(testCase.input)
        let again = try parser.parse(query.description)
        #expect(again == query, "canonical form: \(query.description)")
    }

    @Test(arguments: errorCases)
    func rejectsMalformedInput(_ testCase: ErrorCase) {
        #expect(throws: testCase.expected) { try parser.parse(testCase.input) }
        do {
            _ = try parser.parse(testCase.input)
        } catch {
            #expect(error.description.contains(testCase.message), "message: \(error.description)")
            #expect(error.description == error.description.lowercased() || error.description.contains("OR"))
            #expect(error.column == testCase.expected.column)
        }
    }

    @Test func canonicalForms() throws {
        let cases: [(String, String)] = [
            (#"Title:"bobby  tables" OR sql -drop"#, #"title:"bobby tables" OR sql -drop"#),
            ("(a b) OR c -(d OR e)", "(a b) OR c -(d OR e)"),
            ("#327", "327"),
            (
                "IS:FAV year:2010 num:5 after:2009-12 sort:-date tag:x",
                "num:5 date:2010-01-01..2010-12-31 is:fav tag:x sort:-date"
            ),
            ("num:..9 before:2010", "num:..9 date:..2009-12-31"),
            ("a OR OR b", #"a "OR" OR b"#),
        ]
        for (input, canonical) in cases {
            #expect(try parser.parse(input).description == canonical, "for \(input)")
        }
    }

    @Test func positiveTermsSkipExclusionsAndPrefixes() throws {
        let query = try parser.parse(#"bobby "little tables" -drop tabl* (sql OR db) title:mom -"x y""#)
        #expect(query.text?.positiveTerms == ["bobby", "little", "tables", "sql", "db", "mom"])
    }

    @Test func replacingTermsKeepsStructure() throws {
        let query = try parser.parse(#"tabels "bobby tabels" -tabels tabel* title:tabels"#)
        let fixed = query.text?.replacingTerms(["tabels": "tables"])
        #expect(fixed?.description == #"tables "bobby tables" -tables tabel* title:tables"#)
    }

    @Test func exclusionOnlyQueriesAreFlagged() throws {
        #expect(try parser.parse("-a -b").text?.isExclusionOnly == true)
        #expect(try parser.parse("-a").text?.isExclusionOnly == true)
        #expect(try parser.parse("a -b").text?.isExclusionOnly == false)
    }

    @Test func emptinessAndFilterOnly() throws {
        #expect(try parser.parse("  ").isEmpty)
        #expect(try parser.parse("sort:date").isEmpty)
        #expect(try parser.parse("is:fav").isFilterOnly)
        #expect(try parser.parse("year:2010 sort:-date").isFilterOnly)
        #expect(try !parser.parse("a is:fav").isFilterOnly)
    }

    @Test func syntaxHelpMentionsEveryFeature() {
        let help = QueryParser.syntaxHelp
        for needle in [
            "\"bobby tables\"", "tabl*", "-sql", " OR ", "title:", "alt:", "transcript:", "explanation:", "#327",
            "num:100..200", "year:", "date:", "before:", "after:", "is:fav", "tag:", "sort:-date", "sort:-num",
        ] {
            #expect(help.contains(needle), "help lacks \(needle)")
        }
        #expect(help.split(separator: "\n").count <= 30)
    }
}
