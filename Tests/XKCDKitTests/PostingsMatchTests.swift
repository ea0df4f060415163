import Foundation
import GRDB
import Logging
import Testing
import XKCDIndexer
import XKCDQuery
import _XKCDTestSupport

@testable import XKCDKit
@testable import XKCDStore

@Suite("Matching from the ranking postings")
struct PostingsMatchTests {
    /// Words, prefixes, OR, exclusions and field scopes are matched from the ranking postings
    /// instead of FTS5 (`comicIDsFromPostings`): on 3,000 queries made of the fixture comics'
    /// own words, each such set is FTS5's, and most queries take that way.
    @Test func postingsMatchAsFTS5Does() async throws {
        let database = try await sharedFixtureIndex.value
        var vocabulary: [String] = ["c++", "don't", "AT&T", "50%", "🎉", "e-mail", "NEAR", "naïve", "3d"]
        for id in try database.comicIDs() {
            let comic = try #require(try database.comic(id))
            var text = comic.title + " " + comic.alt + " " + comic.transcript
            if let explanation = try database.explanation(for: id) { text += " " + explanation.page.explanation }
            vocabulary += text.split { !$0.isLetter && !$0.isNumber }.map(String.init)
        }
        var random = SplitMix64(seed: 0x706F_7374)  // "post"
        func word() -> String {
            let word = vocabulary.randomElement(using: &random)!
            return Bool.random(using: &random) ? word : word.uppercased()
        }
        func leaf() -> String {
            let scope =
                Int.random(in: 0..<8, using: &random) == 0
                ? SearchField.allCases.randomElement(using: &random)!.rawValue + ":" : ""
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1: return scope + String(word().prefix(Int.random(in: 2...5, using: &random))) + "*"
            case 2:
                return scope + "\""
                    + (0..<Int.random(in: 1...2, using: &random)).map { _ in word() }.joined(separator: " ") + "\""
            default: return scope + word()
            }
        }
        let parser = QueryParser()
        var fromPostings = 0
        for _ in 0..<3_000 {
            var parts: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                switch Int.random(in: 0..<6, using: &random) {
                case 0: parts.append("(" + leaf() + " OR " + leaf() + ")")
                case 1: parts.append(leaf() + " OR " + leaf())
                default: parts.append(leaf())
                }
            }
            if Int.random(in: 0..<3, using: &random) == 0 { parts.append("-" + leaf()) }
            let query = parts.joined(separator: " ")
            guard let text = try? parser.parse(query).text else { continue }
            let (postings, fullText) = try database.reading { snapshot in
                (try snapshot.comicIDsFromPostings(matching: text), try snapshot.comicIDsFromFullText(matching: text))
            }
            guard let postings else { continue }
            fromPostings += 1
            #expect(postings == fullText, "\(query)")
        }
        #expect(fromPostings > 2_000)
    }
}
