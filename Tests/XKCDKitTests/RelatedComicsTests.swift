import Foundation
import Logging
import Testing
import XKCDIndexer
import XKCDStore
import _XKCDTestSupport

@testable import XKCDKit

/// `related`: the comics an explanation links to and those linking to it, on the real fixtures.
@Suite("Related comics")
struct RelatedComicsTests {
    private func library() async throws -> Library {
        Library(database: try await makeFixtureIndex())
    }

    private func summary(_ related: RelatedComics) -> [String] {
        related.related.map { "\($0.id) \($0.reasons.map(\.rawValue).joined(separator: "+"))" }
    }

    @Test func linksBothWaysAndOneWay() async throws {
        let library = try await library()
        // 327 and 10 link to each other; 327's link to 1253 goes to a comic not in the index.
        let mom = try library.related(.number(327))
        #expect(mom.comic.title == "Exploits of a Mom")
        #expect(summary(mom) == ["10 links to+linked from"])
        #expect(mom.related.first?.title == "Pi Equals" && mom.related.first?.date.description == "2006-01-01")
        // 2841's explanation links to 1116, whose explanation does not link back.
        #expect(summary(try library.related(.number(2841))) == ["1116 links to"])
        #expect(summary(try library.related(.number(1116))) == ["2841 linked from"])
        #expect(
            summary(try library.related(.number(1608))) == ["1611 links to+linked from", "1663 links to+linked from"])
        #expect(try library.related(.number(149)).related.isEmpty)
    }

    @Test func withoutANumberItIsTheComicShownLast() async throws {
        let library = try await library()
        _ = try library.show(.number(10))
        #expect(summary(try library.related(nil)) == ["9 links to+linked from", "327 links to+linked from"])
        #expect(library.currentComicID() == 10)
        #expect(throws: LibraryError.notIndexed(11)) { try library.related(.number(11)) }
    }

    @Test func bothWaysComeBeforeOneWayThenByNumber() {
        let date = ComicDate(year: 2020, month: 1, day: 1)
        let listed = [
            RelatedComic(id: 5, title: "e", date: date, reasons: [.linkedFrom]),
            RelatedComic(id: 9, title: "i", date: date, reasons: [.linksTo, .linkedFrom]),
            RelatedComic(id: 2, title: "b", date: date, reasons: [.linksTo]),
            RelatedComic(id: 7, title: "g", date: date, reasons: [.linksTo, .linkedFrom]),
        ]
        #expect(Library.ordered(listed).map(\.id) == [7, 9, 2, 5])
    }
}
