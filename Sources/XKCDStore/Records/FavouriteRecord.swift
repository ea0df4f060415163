import FoundationEssentials
import GRDB

struct FavouriteRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "favourite"
    var comicID: Int
    var addedAt: Date
}
