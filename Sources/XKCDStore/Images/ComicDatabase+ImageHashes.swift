import GRDB
import XKCDModel

extension ComicDatabase {
    /// The perceptual hashes of every comic image hashed so far, by comic number.
    ///
    /// - Returns: each comic's hashes, a row each (64-bit patterns kept as SQLite's signed integers).
    /// - Throws: `StoreError` when the index cannot be read.
    package func imageHashes() throws(StoreError) -> [(id: Comic.ID, hash: UInt64)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT comicID, hash FROM imageHash ORDER BY comicID").map { row in
                (id: row[0], hash: UInt64(bitPattern: row[1]))
            }
        }
    }

    /// The image URL each comic's hashes were made from, so that a run hashes only what is new.
    ///
    /// - Returns: the image URL by comic number.
    /// - Throws: `StoreError` when the index cannot be read.
    package func hashedImageURLs() throws(StoreError) -> [Comic.ID: String] {
        try read { db in
            var urls: [Comic.ID: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT comicID, imageURL FROM imageHash") { urls[row[0]] = row[1] }
            return urls
        }
    }

    /// Stores the hashes, replacing a comic's earlier ones, in one transaction.
    ///
    /// - Parameter hashes: each comic's hashes and the image URL they were made from.
    /// - Throws: `StoreError` when the index cannot be written.
    package func storeImageHashes(_ hashes: [(id: Comic.ID, imageURL: String, hashes: [UInt64])]) throws(StoreError) {
        guard !hashes.isEmpty else { return }
        try write { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM imageHash WHERE comicID = ?")
            let insert = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO imageHash(comicID, imageURL, hash) VALUES (?, ?, ?)")
            for entry in hashes {
                try delete.execute(arguments: [entry.id])
                for hash in entry.hashes {
                    try insert.execute(arguments: [entry.id, entry.imageURL, Int64(bitPattern: hash)])
                }
            }
        }
    }
}
