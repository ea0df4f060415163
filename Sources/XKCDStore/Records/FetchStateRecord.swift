import FoundationEssentials
import GRDB
import XKCDModel

struct FetchStateRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "fetchState"
    var comicID: Int
    var resource: String
    var status: String
    var message: String?
    var attemptedAt: Date
}
