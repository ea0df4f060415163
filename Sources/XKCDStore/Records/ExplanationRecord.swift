import FoundationEssentials
import GRDB
import XKCDModel

struct ExplanationRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "explanation"
    var comicID: Int
    var pageTitle: String
    var explanation: String
    var transcript: String
    var trivia: String
    /// One category per line: categories never contain a newline.
    var categories: String
    var isIncomplete: Bool
    var revision: Int?
    var fetchedAt: Date

    init(_ explanation: Explanation, fetchedAt: Date) {
        comicID = explanation.comicID
        pageTitle = explanation.pageTitle
        self.explanation = explanation.page.explanation
        transcript = explanation.page.transcript
        trivia = explanation.page.trivia
        categories = explanation.categories.joined(separator: "\n")
        isIncomplete = explanation.page.isIncomplete
        revision = explanation.revision
        self.fetchedAt = fetchedAt
    }

    var model: Explanation {
        let list = categories.split(separator: "\n").map(String.init)
        return Explanation(
            comicID: comicID, pageTitle: pageTitle,
            page: ExplainedPage(
                explanation: explanation, transcript: transcript, trivia: trivia, categories: list,
                isIncomplete: isIncomplete),
            categories: list, revision: revision)
    }
}
