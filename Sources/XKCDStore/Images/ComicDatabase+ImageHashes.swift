import GRDB
import XKCDModel

extension ComicDatabase {
    /// The perceptual hash of every comic image hashed so far, by comic number.
    ///
    /// - Returns: each comic's hash (a 64-bit pattern kept as SQLite's signed integer).
    /// - Throws: `StoreError` when the index cannot be read.
    package func imageHashes() throws(StoreError) -> [(id: Comic.ID, hash: UInt64)] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT comicID, hash FROM imageHash ORDER BY comicID").map { row in
                (id: row[0], hash: UInt64(bitPattern: row[1]))
            }
        }
    }

    /// The image URL each comic's hash was made from, so that a run hashes only what is new.
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

    /// Stores the hashes, replacing a comic's earlier one, in one transaction.
    ///
    /// - Parameter hashes: each comic's hash and the image URL it was made from.
    /// - Throws: `StoreError` when the index cannot be written.
    package func storeImageHashes(_ hashes: [(id: Comic.ID, imageURL: String, hash: UInt64)]) throws(StoreError) {
        guard !hashes.isEmpty else { return }
        try write { db in
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO imageHash(comicID, imageURL, hash) VALUES (?, ?, ?)")
            for entry in hashes {
                try insert.execute(arguments: [entry.id, entry.imageURL, Int64(bitPattern: entry.hash)])
            }
        }
    }
}
