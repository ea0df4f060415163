import FoundationEssentials
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
