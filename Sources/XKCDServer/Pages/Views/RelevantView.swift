import Foundation
import XKCDKit

/// The passage form, and the comics that fit the passage posted.
struct RelevantView: Sendable {
    struct Result: Sendable {
        var num: Int
        var title: String
        var date: String
        var snippet: [SearchView.Result.Piece]
        var words: String?
        var meaning: String?
        var liftedBy: [String]
    }

    var passage = ""
    var note: String?
    /// How sure the first comic is the one, as a sentence ("The first fits well.").
    var confidence: String?
    var problem: String?
    var results: [Result] = []
    var hasResults = false
    var isEmpty = false

    init(passage: String = "", problem: String? = nil) {
        self.passage = sanitized(passage, keepingNewlines: true)
        self.problem = problem
    }

    init(_ found: RelevantResults) {
        passage = sanitized(found.passage, keepingNewlines: true)
        // Why meaning could not be asked is the server's business (it can name a file): the
        // page says only that it was not, as /api/stats does.
        let notes = [
            found.cutNote.map { $0 + " (the box holds the part read)" },
            found.semanticProblem.map { _ in "ranked by words only: search by meaning is not available on this server"
            },
        ]
        let joined = notes.compactMap { $0 }.joined(separator: "; ")
        note = joined.isEmpty ? nil : joined
        confidence = found.confidence.map { confidence in
            switch confidence {
            case .fitsWell: "The first fits well."
            case .mightFit: "The first might fit."
            case .longShot: "The first is a long shot."
            }
        }
        results = found.results.map { result in
            let meaning = result.similarity.map { similarity in
                let nearest = result.sentence.map { ": \u{201C}\(sanitized($0))\u{201D}" } ?? ""
                return String(format: "similar in meaning (%.2f)", similarity) + nearest
            }
            return Result(
                num: result.id, title: sanitized(result.title), date: result.date.description,
                snippet: SearchView.pieces(of: result.snippet),
                words: result.words.isEmpty ? nil : sanitized(result.words.joined(separator: ", ")), meaning: meaning,
                liftedBy: result.liftedBy.map { sanitized($0) })
        }
        hasResults = !results.isEmpty
        isEmpty = results.isEmpty
    }
}
