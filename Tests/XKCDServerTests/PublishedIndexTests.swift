import Foundation
import HTTPTypes
import Logging
import Testing
import XKCDKit
import XKCDServer
import XKCDStore
import _XKCDTestSupport

/// A file renamed over the served index (issue 39, docs/server.md): a good index is served from
/// the next request on; a file that is no SQLite database is ignored; one that is SQLite but no
/// index makes the server answer 503 `index-unavailable` (`/healthz` too) until a good one comes,
/// the file served before it included (a rollback).
@Suite("HTTP API: an index published at the served path")
struct PublishedIndexTests {
    @Test func eachFilePublishedIsServedRefusedOrIgnoredAsItDeserves() async throws {
        let served = try await Harness.build()
        let path = served.directory.appendingPathComponent("index.sqlite").path
        // The index to publish: another of the same comics, with #327 a favourite.
        let publishing = try await Harness.build()
        _ = try Library(database: publishing.database).setFavourite(.number(327), tags: ["published"])
        publishing.database.closeConnections()
        let good = publishing.directory.appendingPathComponent("index.sqlite").path
        let junk = served.directory.appendingPathComponent("junk.sqlite").path
        try Data("not a database at all, just some text".utf8).write(to: URL(fileURLWithPath: junk))
        let foreign = served.directory.appendingPathComponent("foreign.sqlite").path
        let made = try runSQLite(foreign, "CREATE TABLE notes(text); INSERT INTO notes VALUES ('mine')")
        #expect(made == 0)
        // The file served first, kept under another name to be rolled back to.
        let kept = served.directory.appendingPathComponent("kept.sqlite").path
        #expect(link(path, kept) == 0)

        let server = try APIServer(
            configuration: .init(port: 0, requestDeadline: .seconds(600)),
            services: testServices(served.database, images: served.directory.appendingPathComponent("images")),
            logger: .init(label: "published-index-tests") { _ in SwiftLogNoOpLogHandler() })
        try await server.testLive { client in
            func favourites() async throws -> (status: Int, text: String) {
                try await client.execute(uri: "/api/favourites", method: .get) { (Int($0.status.code), text($0)) }
            }
            #expect(try await favourites() == (200, "[]"))

            // Not SQLite: the old index is served on.
            #expect(rename(junk, path) == 0)
            #expect(try await favourites() == (200, "[]"))

            // SQLite, but another program's: nothing is served until a good file comes.
            #expect(rename(foreign, path) == 0)
            let refused = try await favourites()
            #expect(refused.status == 503 && refused.text.contains("index-unavailable"), "\(refused)")
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .serviceUnavailable) }
            // The foreign file was not written to.
            #expect(try runSQLite(path, "SELECT count(*) FROM sqlite_master WHERE name <> 'notes'") == 0)

            // Rolled back: the file served first, renamed back over the path, is served again.
            #expect(rename(kept, path) == 0)
            #expect(try await favourites() == (200, "[]"))
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }

            #expect(rename(good, path) == 0)
            let published = try await favourites()
            #expect(published.status == 200 && published.text.contains("\"published\""), "\(published)")
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
        }
    }

    /// Runs the sqlite3 shell on `path`; its exit status, or the number it printed for a count.
    private func runSQLite(_ path: String, _ sql: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", path, sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Int32(printed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? process.terminationStatus
    }
}
