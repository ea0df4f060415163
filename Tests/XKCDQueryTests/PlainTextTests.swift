import Testing
import XKCDModel
import _XKCDTestSupport

@testable import XKCDQuery

/// Plain text: descriptions, sentences, contractions, addresses.
private func words(_ list: String...) -> TextQuery {
    list.count == 1 ? term(list[0]) : .and(list.map { term($0) })
}

private func sentence(_ text: TextQuery, dateRange: Bounds<ComicDate>? = nil) -> SearchQuery {
    SearchQuery(text: text, dateRange: dateRange, isSentence: true)
}

private func comic(_ number: Int) -> SearchQuery { SearchQuery(text: term(String(number)), exactComic: number) }

let plainTextCases: [ParseCase] = [
    // A leading description of the comic is left out, whatever it is made of.
    // Sentences are counted as typed: "the one where" makes a sentence of three more words.
    ParseCase(input: "the one where the neural net learned", expected: sentence(words("neural", "net", "learned"))),
    ParseCase(
        input: "that xkcd comic where the neural net learned", expected: sentence(words("neural", "net", "learned"))),
    ParseCase(input: "The one about cats", expected: sentence(words("cats"))),
    ParseCase(input: "xkcd about cats", expected: text(words("cats"))),
    ParseCase(input: "there's an xkcd with sheep", expected: sentence(words("sheep"))),
    ParseCase(input: "there's an xkcd, sheep in a field", expected: sentence(words("sheep", "in", "a", "field"))),
    ParseCase(input: "that comic with a bunny", expected: sentence(words("bunny"))),
    ParseCase(input: "the xkcd where a bunny", expected: sentence(words("bunny"))),
    ParseCase(input: "Is there an XKCD in which a bunny", expected: sentence(words("bunny"))),
    ParseCase(input: "i remember one about the the one where cats", expected: sentence(words("cats"))),
    ParseCase(input: #"the one about "bobby tables""#, expected: text(phrase("bobby", "tables"))),
    ParseCase(
        input: #"the one where he says "bobby tables""#,
        expected: sentence(.and([term("he"), term("says"), phrase("bobby", "tables")]))),
    ParseCase(
        input: "the one about cats year:2010",
        expected: sentence(term("cats"), dateRange: dates(day(2010, 1, 1), day(2010, 12, 31)))),
    ParseCase(input: "xkcd comic xkcd comic", expected: sentence(words("xkcd", "comic", "xkcd", "comic"))),
    // Not a description: kept as typed.
    ParseCase(input: "the one ring", expected: text(words("the", "one", "ring"))),
    ParseCase(input: "comic sans", expected: text(words("comic", "sans"))),
    ParseCase(input: "xkcd phone", expected: text(words("xkcd", "phone"))),
    ParseCase(input: "the xkcd phone", expected: text(words("the", "xkcd", "phone"))),
    ParseCase(input: "the one about", expected: text(words("the", "one", "about"))),
    ParseCase(
        input: "the one about -cats dogs",
        expected: text(.and([term("the"), term("one"), term("about"), .not(term("cats")), term("dogs")]))),
    ParseCase(
        input: "the one about cat*", expected: text(.and([term("the"), term("one"), term("about"), prefix("cat")]))),
    // Sentences: quoted speech kept as phrases, read as preferred (`isSentence`); xkcd and comic left out.
    ParseCase(
        input: #"he says "it works" and she says no"#,
        expected: sentence(
            .and([term("he"), term("says"), phrase("it", "works"), term("and"), term("she"), term("says"), term("no")]))
    ),
    ParseCase(
        input: #"he says “it works” to her in a comic"#,
        expected: sentence(
            .and([term("he"), term("says"), phrase("it", "works"), term("to"), term("her"), term("in"), term("a")]))),
    ParseCase(
        input: "neural net learned the xkcd wrong thing",
        expected: sentence(words("neural", "net", "learned", "the", "wrong", "thing"))),
    ParseCase(
        input: "neural net learned wrong year:2019..",
        expected: sentence(words("neural", "net", "learned", "wrong"), dateRange: dates(day(2019, 1, 1), nil))),
    ParseCase(
        input: #"three words "then a phrase""#,
        expected: text(.and([term("three"), term("words"), phrase("then", "a", "phrase")]))),
    // A quote left open in a sentence is a character.
    ParseCase(
        input: #"he says "it works on my machine"#,
        expected: sentence(words("he", "says", "it", "works", "on", "my", "machine"))),
    ParseCase(
        input: #"he says "it works" and she "ships it"#,
        expected: sentence(
            .and([term("he"), term("says"), phrase("it", "works"), term("and"), term("she"), term("ships"), term("it")])
        )),
    // Contractions without their apostrophe.
    ParseCase(input: "cant", expected: text(term("can't"))),
    ParseCase(input: "Dont panic", expected: text(words("Don't", "panic"))),
    ParseCase(input: "isnt youre IM ive lets", expected: sentence(words("isn't", "you're", "I'M", "i've", "let's"))),
    ParseCase(input: #""i cant believe""#, expected: text(phrase("i", "can't", "believe"))),
    ParseCase(input: "title:wont cant,", expected: text(.and([term("won't", .title), term("can't,")]))),
    ParseCase(input: "its well were shell yall", expected: sentence(words("its", "well", "were", "shell", "y'all"))),
    ParseCase(input: "cant*", expected: text(prefix("cant"))),
    // A comic's number after xkcd, and its addresses.
    ParseCase(input: "xkcd 1513", expected: comic(1513)),
    ParseCase(input: "XKCD #1513", expected: comic(1513)),
    ParseCase(input: "https://xkcd.com/1513/", expected: comic(1513)),
    ParseCase(input: "xkcd.com/1513", expected: comic(1513)),
    ParseCase(input: " https://m.xkcd.com/1513/ ", expected: comic(1513)),
    ParseCase(input: "https://www.explainxkcd.com/wiki/index.php/1513:_Code_Quality", expected: comic(1513)),
    ParseCase(input: "https://www.explainxkcd.com/wiki/index.php/1513", expected: comic(1513)),
    ParseCase(input: "https://www.explainxkcd.com/wiki/index.php?title=1513:_Code_Quality", expected: comic(1513)),
    ParseCase(input: "xkcd.com/about", expected: text(term("xkcd.com/about"))),
    ParseCase(input: "https://xkcd.com/1513/x", expected: text(term("https://xkcd.com/1513/x"))),
    ParseCase(input: "xkcd 1513 code", expected: text(words("xkcd", "1513", "code"))),
]

let plainTextErrorCases: [ErrorCase] = [
    // Too few words for a sentence, or query language: the quote is an error as before.
    ErrorCase(
        input: #"works "on my"#, expected: .unclosedQuote(column: 7), message: "unclosed quote starting at column 7"),
    ErrorCase(
        input: #"one where"on"#, expected: .unclosedQuote(column: 10),
        message: "unclosed quote starting at column 10"),
    ErrorCase(
        input: #"he says it -works "on my machine"#, expected: .unclosedQuote(column: 19),
        message: "unclosed quote starting at column 19"),
    ErrorCase(
        input: #"he says it title:works "on my machine"#, expected: .unclosedQuote(column: 24),
        message: "unclosed quote starting at column 24"),
]

@Suite struct PlainTextTests {
    let parser = QueryParser()

    @Test(arguments: plainTextCases)
    func parsesToExpectedQuery(_ testCase: ParseCase) throws {
        let query = try parser.parse(testCase.input)
        #expect(query == testCase.expected, "got \(query.description), sentence: \(query.isSentence)")
    }

    /// The canonical form of a description is its content: parsed again, it searches the same
    /// words and gives the same canonical form (it may no longer be a sentence: see
    /// `SearchQuery.isSentence`).
    @Test(arguments: plainTextCases)
    func canonicalFormParsesBackToTheSameWords(_ testCase: ParseCase) throws {
        let query = try parser.parse(testCase.input)
        let again = try parser.parse(query.description)
        #expect(
            again.text == query.text && again.description == query.description, "canonical form: \(query.description)")
    }

    @Test(arguments: plainTextErrorCases)
    func unclosedQuotesOutsideSentencesAreErrors(_ testCase: ErrorCase) {
        #expect(throws: testCase.expected) { try parser.parse(testCase.input) }
    }

    @Test func fillerNeverChangesWhatIsSearched() throws {
        let content = try parser.parse("neural net learned the wrong thing")
        for filler in [
            "the one where", "that xkcd comic where", "the one about", "xkcd about", "there's an xkcd",
            "that comic with",
            "the xkcd where", "theres an xkcd where the", "I remember the one in which", "is there an xkcd about",
        ] {
            #expect(try parser.parse(filler + " neural net learned the wrong thing") == content, "after \(filler)")
        }
    }

    /// The time limit only guards against a parse that is not linear (see
    /// `oneMegabyteQueryParsesQuickly`).
    @Test(.timeLimit(.minutes(3))) func longDescriptionsParseInLinearTime() throws {
        let filler = String(repeating: "the one where ", count: 60_000) + "cats"
        let sentence = String(repeating: #"he says "cant stop" xkcd "#, count: 40_000) + #""open"#
        let cats = try parser.parse(filler)
        let said = try parser.parse(sentence)
        #expect(cats.text == term("cats"))
        #expect(said.isSentence && said.text?.positiveTerms.count == 40_000 * 4 + 1)
    }

    @Test func everyContractionGetsItsApostrophe() throws {
        for word in Array(Contractions.table.keys) {
            let parsed = try parser.parse(word)
            guard case .term(let searched, nil)? = parsed.text else {
                Issue.record("\(word) parsed as \(parsed)")
                continue
            }
            #expect(searched.contains("'") && searched.filter { $0 != "'" } == word)
        }
    }
}
