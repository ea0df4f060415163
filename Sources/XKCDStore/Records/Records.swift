import Foundation
import GRDB
import XKCDModel

struct ComicRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "comic"
    var id: Int
    var title: String
    var safeTitle: String
    var alt: String
    var transcript: String
    var imageURL: String
    var link: String
    var news: String
    var date: String
    var fetchedAt: Date

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let date = Column(CodingKeys.date)
    }

    init(_ comic: Comic, fetchedAt: Date) {
        id = comic.id
        title = comic.title
        safeTitle = comic.safeTitle
        alt = comic.alt
        transcript = comic.transcript
        imageURL = comic.imageURL
        link = comic.link
        news = comic.news
        date = comic.date.description
        self.fetchedAt = fetchedAt
    }

    var comic: Comic {
        Comic(
            id: id, title: title, safeTitle: safeTitle, alt: alt, transcript: transcript,
            imageURL: imageURL, link: link, news: news,
            date: Self.date(from: date))
    }

    /// The stored `YYYY-MM-DD`; the epoch for a value no indexer writes.
    static func date(from text: String) -> ComicDate {
        ComicDate(iso: text) ?? ComicDate(year: 1970, month: 1, day: 1)
    }
}

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

struct SearchDocument: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "searchDocument"
    var id: Int
    var title: String
    var alt: String
    var transcript: String
    var explanation: String
}

struct FetchStateRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "fetchState"
    var comicID: Int
    var resource: String
    var status: String
    var message: String?
    var attemptedAt: Date
}
