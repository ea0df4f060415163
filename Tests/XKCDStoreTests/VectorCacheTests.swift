import Foundation
import GRDB
import Testing
import XKCDModel

@testable import XKCDStore

/// The sentence vectors a process keeps in memory (``VectorCache``): the same similarities as
/// the file's, kept only from the second scan on, and read again whenever any connection
/// changes the vectors.
@Suite struct VectorCacheTests {
    private static let model = "test-model/1"
    private static let dimensions = 16

    /// A unit vector from a seed, deterministic.
    private static func unitVector(_ seed: Int) -> [Float] {
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        let values = (0..<dimensions).map { _ -> Float in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Float(Int64(bitPattern: state % 2001) - 1000) / 1000
        }
        let length = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return values.map { $0 / length }
    }

    /// Comics 1...40, one passage each and two for every fifth.
    private static func vectors(seed: Int = 0) -> [ComicVector] {
        (1...40).flatMap { id in
            (0..<(id % 5 == 0 ? 2 : 1)).map { passage in
                ComicVector(
                    id: id, passage: passage, model: model, textDigest: "t\(id)",
                    vector: unitVector(seed + id * 10 + passage))
            }
        }
    }

    private static func expectedBest(_ vectors: [ComicVector], _ query: [Float]) -> [Float] {
        var best = [Float](repeating: 0, count: 41)
        for vector in vectors {
            let dot = zip(query, vector.vector).reduce(Float(0)) { $0 + $1.0 * $1.1 }
            best[vector.id] = max(best[vector.id], dot)
        }
        return best
    }

    private func withIndex(_ body: (String, ComicDatabase) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("xkcd-vectors-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("index.sqlite").path
        try body(path, try ComicDatabase.open(at: path))
    }

    @Test func keptVectorsGiveTheSimilaritiesOfTheFile() throws {
        try withIndex { _, database in
            let stored = Self.vectors()
            try database.replaceVectors(stored)
            let query = Self.unitVector(999)
            let expected = Self.expectedBest(stored, query)
            var results: [[Float]] = []
            var passages: [[[Float]]] = []
            for scan in 1...3 {
                results.append(try database.reading { try $0.vectorSimilarities(to: query, model: Self.model) })
                // A one-shot search scans once and keeps nothing; the second scan keeps them.
                #expect((database.vectorCache.kept != nil) == (scan >= 2), "scan \(scan)")
            }
            for _ in 1...3 {
                passages.append(try database.reading { try $0.passageSimilarities(to: query, model: Self.model) })
            }
            for result in results {
                #expect(result.count == expected.count)
                for (got, want) in zip(result, expected) { #expect(abs(got - want) < 1e-5) }
            }
            #expect(passages[0] == passages[1] && passages[1] == passages[2])
            #expect(passages[0][5].count == 2 && passages[0][4].count == 1)
            // Vectors of another length are no query's of this one.
            #expect(try database.reading { try $0.vectorSimilarities(to: [1, 0], model: Self.model) }.isEmpty)
        }
    }

    /// Another process replacing a comic's vectors (here another connection to the file), or
    /// any program changing the table, raises the version: the next search reads them again.
    @Test func aChangeByAnyConnectionIsSeen() throws {
        try withIndex { path, database in
            try database.replaceVectors(Self.vectors())
            let query = Self.unitVector(999)
            for _ in 1...2 { _ = try database.reading { try $0.vectorSimilarities(to: query, model: Self.model) } }
            let keptVersion = try #require(database.vectorCache.kept?.version)

            // The query itself as comic 7's vector: its similarity becomes 1.
            let other = try ComicDatabase.open(at: path)
            try other.replaceVectors([
                ComicVector(id: 7, passage: 0, model: Self.model, textDigest: "changed", vector: query)
            ])
            var similarities = try database.reading { try $0.vectorSimilarities(to: query, model: Self.model) }
            #expect(abs(similarities[7] - 1) < 1e-5)
            // The out-of-date vectors are let go; the next search keeps the new ones.
            #expect(database.vectorCache.kept == nil)
            similarities = try database.reading { try $0.vectorSimilarities(to: query, model: Self.model) }
            #expect(abs(similarities[7] - 1) < 1e-5)
            #expect(database.vectorCache.kept.map { $0.version != keptVersion } == true)

            // A plain SQLite connection, as another program would write.
            let plain = try DatabaseQueue(path: path)
            try plain.write { db in
                try db.execute(sql: "DELETE FROM comicVector WHERE comicID = 7")
            }
            for _ in 1...2 {
                similarities = try database.reading { try $0.vectorSimilarities(to: query, model: Self.model) }
                #expect(similarities[7] == 0)
            }
            let version = try plain.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = 'vectorsVersion'")
            }
            // Inserts of 48 rows, then one delete and one insert, then one delete.
            #expect(version == "51")
        }
    }
}
