/// One xkcd comic as the xkcd JSON API describes it.
public struct Comic: Sendable, Hashable, Codable, Identifiable {
    /// The comic's number, as in `https://xkcd.com/327/`.
    public typealias ID = Int

    public var id: ID
    public var title: String
    public var safeTitle: String
    /// The title text (the image's `title` attribute), called "alt" by the API.
    public var alt: String
    /// The API's own transcript; empty after about #1608, and wrong for a few comics.
    public var transcript: String
    public var imageURL: String
    public var link: String
    public var news: String
    public var date: ComicDate

    public init(
        id: ID, title: String, safeTitle: String = "", alt: String, transcript: String = "",
        imageURL: String = "", link: String = "", news: String = "", date: ComicDate
    ) {
        self.id = id
        self.title = title
        self.safeTitle = safeTitle.isEmpty ? title : safeTitle
        self.alt = alt
        self.transcript = transcript
        self.imageURL = imageURL
        self.link = link
        self.news = news
        self.date = date
    }

    /// The comic's page on xkcd.com.
    public var url: String { Comic.url(for: id) }

    /// The comic's page on the explain xkcd wiki.
    public var explainURL: String { Comic.explainURL(for: id) }

    /// The page of comic `id` on xkcd.com: `https://xkcd.com/327/`.
    public static func url(for id: ID) -> String {
        "https://xkcd.com/\(id)/"
    }

    /// The page of comic `id` on the explain xkcd wiki, which redirects the number to the title.
    public static func explainURL(for id: ID) -> String {
        "https://www.explainxkcd.com/wiki/index.php/\(id)"
    }
}

/// A calendar day, as xkcd dates its comics (no time, no time zone).
public struct ComicDate: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD` (digits, so `2010-3-5` too); nil for anything else.
    public init?(iso: String) {
        // Read as bytes: every result of a search has its date parsed, and splitting the
        // string allocated.
        var parts = (0, 0, 0)
        var part = 0
        var digits = 0
        for byte in iso.utf8 {
            if byte == UInt8(ascii: "-") {
                guard digits > 0, part < 2 else { return nil }
                part += 1
                digits = 0
                continue
            }
            // Nine digits cannot overflow; no date needs more.
            guard byte &- UInt8(ascii: "0") < 10, digits < 9 else { return nil }
            let value = Int(byte &- UInt8(ascii: "0"))
            switch part {
            case 0: parts.0 = parts.0 * 10 + value
            case 1: parts.1 = parts.1 * 10 + value
            default: parts.2 = parts.2 * 10 + value
            }
            digits += 1
        }
        guard part == 2, digits > 0 else { return nil }
        self.init(year: parts.0, month: parts.1, day: parts.2)
    }

    /// `YYYY-MM-DD`, which also sorts as text.
    public var description: String {
        func pad(_ n: Int, _ width: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar.
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public static func < (lhs: ComicDate, rhs: ComicDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}
