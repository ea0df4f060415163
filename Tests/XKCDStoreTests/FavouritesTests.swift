import Foundation
import Testing
import XKCDModel

@testable import XKCDStore

@Suite struct FavouritesTests {
    let database = try! ComicDatabase.inMemory()

    private func store(_ comics: [Comic]) throws {
        try database.apply(
            comics.map { ComicUpdate(id: $0.id, comic: .fetched($0, at: Date()), explanation: .unchanged) })
    }

    @Test func addingIsIdempotentAndKeepsTheFirstDate() throws {
        let first = Sample.date("2026-01-01")
        let merge = try database.addFavourite(327, tags: ["sql"], at: first)
        #expect(merge == FavouriteMerge(addedFavourites: [327], addedTags: 1))
        let again = try database.addFavourite(327, tags: ["sql", "bobby"], at: Sample.date("2026-02-02"))
        #expect(again == FavouriteMerge(addedFavourites: [], addedTags: 1))
        #expect(try database.addFavourite(327, tags: ["sql"]).isEmpty)
        #expect(try database.favourite(327) == Favourite(id: 327, addedAt: first, tags: ["bobby", "sql"]))
    }

    @Test func tagsAttachDetachAndCount() throws {
        try database.addFavourite(327, tags: ["sql"])
        try database.addFavourite(149, tags: ["sql", "sudo"])
        #expect(try database.addTags(["classic", "sql"], to: 327) == ["classic"])
        #expect(try database.addTags(["x"], to: 1) == nil)
        #expect(try database.removeTags(["sql", "nope"], from: 149) == ["sql"])
        #expect(try database.removeTags(["x"], from: 1) == nil)
        #expect(
            try database.tagCounts() == [
                TagCount(tag: "classic", count: 1), TagCount(tag: "sql", count: 1), TagCount(tag: "sudo", count: 1),
            ])
        #expect(try database.favourites(taggedWith: "sudo").map(\.id) == [149])
        #expect(try database.favourites().map(\.id) == [149, 327])
        #expect(try database.comicIDs(taggedWith: "classic") == [327])
        #expect(try database.favouriteIDs() == [149, 327])
    }

    @Test func removingAFavouriteRemovesItsTags() throws {
        try database.addFavourite(327, tags: ["sql"])
        #expect(try database.removeFavourite(327))
        #expect(try !database.removeFavourite(327))
        #expect(try database.tagCounts().isEmpty)
        #expect(try database.favourite(327) == nil)
    }

    @Test func favouritesOutliveTheirComicRowsAndFullTextRebuilds() throws {
        try store([Sample.exploits, Sample.sandwich])
        try database.addFavourite(327, tags: ["sql"])
        // A comic re-fetched replaces its row (upsert); the favourite has no foreign key to it.
        try store([Sample.exploits])
        try database.rebuildFullTextIndex()
        #expect(try database.favourite(327)?.tags == ["sql"])
    }

    @Test func neighboursSkipGapsAndStopAtTheEnds() throws {
        try store([Sample.sandwich, Sample.exploits, Sample.dependency])
        #expect(try database.comicID(after: 149) == 327)
        #expect(try database.comicID(after: 200) == 327)
        #expect(try database.comicID(before: 327) == 149)
        #expect(try database.comicID(after: 2347) == nil)
        #expect(try database.comicID(before: 149) == nil)
        #expect(try database.firstComicID() == 149)
    }

    @Test func randomDrawsOnlyFromItsPool() throws {
        #expect(try database.randomComicID() == nil)
        try store([Sample.sandwich, Sample.exploits, Sample.dependency])
        #expect(try database.randomComicID(favouritesOnly: true) == nil)
        var seen = Set<Int>()
        for _ in 0..<200 { seen.insert(try database.randomComicID()!) }
        #expect(seen == [149, 327, 2347])
        try database.addFavourite(327, tags: ["sql"])
        try database.addFavourite(9999, tags: ["sql"])  // not indexed: never drawn
        for _ in 0..<20 {
            #expect(try database.randomComicID(favouritesOnly: true) == 327)
            #expect(try database.randomComicID(taggedWith: "sql") == 327)
        }
        #expect(try database.randomComicID(taggedWith: "nope") == nil)
    }

    @Test func theCurrentComicIsRemembered() throws {
        #expect(try database.currentComicID() == nil)
        try database.setCurrentComicID(327)
        #expect(try database.currentComicID() == 327)
    }

    /// For each migration: a file left at that migration, with favourites written as that schema
    /// stored them, keeps them once opened (and migrated to the newest schema).
    @Test(arguments: ComicDatabase.migrationNames)
    func favouritesSurviveTheMigrationsAfter(_ migration: String) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("favourites-\(UUID()).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let kept = [
            Favourite(id: 327, addedAt: Sample.date("2025-03-04"), tags: ["bobby", "sql"]),
            Favourite(id: 2347, addedAt: Sample.date("2025-05-06"), tags: []),
        ]
        try ComicDatabase.makeFile(at: path, migratedUpTo: migration, favourites: kept)
        let database = try ComicDatabase.open(at: path)
        #expect(try database.favourites() == kept)
        #expect(try database.tagCounts() == [TagCount(tag: "bobby", count: 1), TagCount(tag: "sql", count: 1)])
    }
}
