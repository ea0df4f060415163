import Testing
import XKCDModel

@testable import XKCDIndexer

/// Reading a file of linked passages (`index --linked-passages`): the benchmark's own format,
/// and a clear reason for a file that is not one.
@Suite struct LinkedPassageFileTests {
    @Test func rowsOfTheBenchmarksFormatAreRead() throws {
        let file = """
            \u{FEFF}query\trelevant\tkind\tnote\tsource
            The build breaks\u{7} every time.\t1172\tsituation\t1172: Workflow\thttps://a.example/1\u{1B} 

            Two comics fit this one.\t303, 1205\tsituation\tboth\thttps://b.example/2
            A situation written for the comic.\t927\t Written \t\tsnapshot/written-situations.tsv
            A description with no kind.\t1\t\t\tc
            """
        #expect(
            try LinkedPassageFile.passages(in: file) == [
                LinkedPassage(comic: 1172, text: "The build breaks every time.", source: "https://a.example/1"),
                LinkedPassage(comic: 303, text: "Two comics fit this one.", source: "https://b.example/2"),
                LinkedPassage(comic: 1205, text: "Two comics fit this one.", source: "https://b.example/2"),
                LinkedPassage(
                    comic: 927, text: "A situation written for the comic.", source: "snapshot/written-situations.tsv",
                    isWritten: true),
                LinkedPassage(comic: 1, text: "A description with no kind.", source: "c"),
            ])
        // Without a kind column, every row is a passage someone linked.
        #expect(
            try LinkedPassageFile.passages(in: "query\trelevant\tsource\nwritten\t1\tx")
                == [LinkedPassage(comic: 1, text: "written", source: "x")])
    }

    @Test(arguments: [
        ("a\tb\tc\nx\t1\ty", "its first line does not name the columns query, relevant and source"),
        ("query\trelevant\tsource\nx\t1", "line 2 has 2 columns, not 3"),
        ("query\trelevant\tsource\nx\tone\ty", "line 2 names no comic number in its relevant column"),
        ("query\trelevant\tsource\nok\t1\ty\nx\t-4\ty", "line 3 names no comic number in its relevant column"),
        ("query\trelevant\tsource\n \t1\ty", "line 2 has no passage"),
        ("query\trelevant\tsource\n\n", "it has no passages"),
        // A kind no ranking knows is more likely a column out of place than a new kind.
        (
            "query\trelevant\tkind\tsource\nok\t1\t\ty\nx\t2\tsituations.tsv\ty",
            "line 3 has a kind other than situation, description or written"
        ),
    ])
    func aFileThatIsNoneSaysWhy(file: String, reason: String) {
        #expect(throws: IndexError.linkedPassages(reason)) { try LinkedPassageFile.passages(in: file) }
    }

    @Test func aMissingFileOrADirectoryIsRefused() {
        #expect(throws: IndexError.linkedPassages("no such file or directory")) {
            try LinkedPassageFile.read("/nonexistent/linked.tsv")
        }
        #expect(throws: IndexError.linkedPassages("it is not a regular file")) { try LinkedPassageFile.read("/") }
    }
}
