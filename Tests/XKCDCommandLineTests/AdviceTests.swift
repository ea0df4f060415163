import Testing
import XKCDCommandLine
import XKCDKit
import XKCDStore

/// What the command line adds to the library's words: the command to run, and a request's rule
/// in the options' names.
@Suite struct AdviceTests {
    @Test(arguments: [
        (LibraryError.emptyIndex as any Error, "the index is empty; run 'xkcd-search index' first"),
        (LibraryError.notIndexed(5), "#5 is not in the index; run 'xkcd-search index' to fetch it"),
        (LibraryError.notAFavourite(327), "#327 is not a favourite (add it with 'fav add 327')"),
        (LibraryError.notANumber("abc"), LibraryError.notANumber("abc").description),
        (
            StoreError.emptyFile(path: "/tmp/e.sqlite"),
            StoreError.emptyFile(path: "/tmp/e.sqlite").description
                + ": build one there with 'xkcd-search index --db /tmp/e.sqlite'"
        ),
        (
            StoreError.rankingDataDamaged,
            "index error: its ranking data is damaged or was written by another version; run 'xkcd-search index --rebuild', or delete the index and run 'xkcd-search index'"
        ),
    ])
    func libraryErrorsGetTheirAdvice(_ error: any Error, _ expected: String) {
        #expect(Advice.line(for: error) == expected)
    }

    @Test(arguments: [
        (
            RequestError.outOfRange(.limit, value: "0", allowed: "between 1 and 1000"),
            "--limit must be between 1 and 1000"
        ),
        (.outOfRange(.page, value: "0", allowed: "1 or more"), "--page must be 1 or more"),
    ])
    func requestRulesAreWordedWithTheOptions(_ error: RequestError, _ expected: String) {
        #expect(Advice.commandLineWords(for: error) == expected)
    }

    @Test(arguments: [
        (["--db", "x", "show", "327"], ["show", "327", "--db", "x"]),
        (["-v", "--no-pager", "search", "a", "--", "-b"], ["search", "a", "-v", "--no-pager", "--", "-b"]),
        (["show", "327"], ["show", "327"]),
        (["--db"], ["--db"]),
    ])
    func globalOptionsBeforeTheCommandMoveAfterIt(_ typed: [String], _ expected: [String]) {
        #expect(GlobalOptions.movedAfterTheCommand(typed) == expected)
    }
}
