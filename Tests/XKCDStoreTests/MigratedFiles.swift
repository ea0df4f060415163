import Foundation
import GRDB
import XKCDModel

@testable import XKCDStore

extension ComicDatabase {
    /// Writes `favourites` into a new file at `path` migrated only up to `migration`, with plain
    /// SQL as the xkcd-search of that schema did; opening it with ``open(at:)`` then runs the
    /// later migrations. Tests use it to prove that favourites survive every migration.
    static func makeFile(
        at path: String, migratedUpTo migration: String, favourites: [Favourite]
    ) throws {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: migration)
        try queue.write { db in
            for favourite in favourites {
                try db.execute(
                    literal: "INSERT INTO favourite(comicID, addedAt) VALUES (\(favourite.id), \(favourite.addedAt))")
                for tag in favourite.tags {
                    try db.execute(literal: "INSERT INTO favouriteTag(comicID, tag) VALUES (\(favourite.id), \(tag))")
                }
            }
        }
        try queue.close()
    }

    /// The names of the schema migrations, oldest first.
    static var migrationNames: [String] { Schema.migrator.migrations }
}
