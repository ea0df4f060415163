import XKCDKit

/// The template `identify.mustache`: the upload form, and what was read and found in the image
/// sent.
struct IdentifyView: Sendable {
    struct Result: Sendable {
        var num: Int
        var title: String
        var date: String
        var words: String?
        var matchesImage: Bool
    }

    var problem: String?
    /// Whether an image was read (the words, the comics or that none fit are shown).
    var hasRead = false
    var read: String?
    var results: [Result] = []
    var hasResults = false
    var isEmpty = false

    init(problem: String? = nil) {
        self.problem = problem
    }

    init(_ found: IdentifyResults) {
        hasRead = true
        let words = found.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        read = words.isEmpty ? nil : sanitized(String(words.prefix(300)))
        results = found.results.map { comic in
            Result(
                num: comic.id, title: sanitized(comic.title), date: comic.date.description,
                words: comic.words.isEmpty ? nil : sanitized(comic.words.joined(separator: ", ")),
                matchesImage: comic.matchesImage)
        }
        hasResults = !results.isEmpty
        isEmpty = results.isEmpty
    }
}
