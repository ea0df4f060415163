import FoundationEssentials
import XKCDFiles
import XKCDStore

/// What `stats --json` prints and `GET /api/stats` answers: what the index holds.
public struct StatsDocument: Encodable, Sendable {
    /// How many comics the index holds.
    public var comics: Int
    /// The newest comic's number; null for an empty index.
    @NullWhenMissing public var latest: Int?
    /// Comics with an explain xkcd explanation.
    public var explained: Int
    /// Explanations that explain xkcd marks as incomplete.
    public var incomplete: Int
    /// Comics the index holds no explanation of.
    public var unexplained: Int
    /// How many comics are favourites.
    public var favourites: Int
    /// How many different tags the favourites carry.
    public var tags: Int
    /// When an `index` run last finished (ISO 8601); null before the first.
    @NullWhenMissing public var lastUpdate: String?
    /// The index file's path (the HTTP API gives its name alone: no path of the machine leaves it).
    public var database: String
    /// The index file's size on disk, its write-ahead log included.
    public var databaseBytes: Int
    /// Whether searches rank by meaning, the model's identity and how many comics it embedded.
    public var semanticSearch: Bool
    /// The identity of the model the comics' vectors were made with; null without one.
    @NullWhenMissing public var semanticModel: String?
    /// How many comics have a vector, so that a search by meaning can find them.
    public var embeddedComics: Int
    /// How many passages people linked comics to (`index --linked-passages`) `relevant` reads:
    /// those with a vector of the model.
    public var linkedPassages: Int
    /// How many situations written for the comics (snapshot/written-situations.tsv, indexed the
    /// same way) `relevant` reads.
    public var writtenSituations: Int
    /// Images kept in the cache, and their size.
    public var images: Int
    /// The size of the images kept in the cache, in bytes.
    public var imageBytes: Int
    /// Comics whose image could not be fetched within the last hour: not asked for again
    /// until then.
    public var imagesMissing: Int
    /// Why searches do not rank by meaning, if they do not: for the text, not the document.
    public var semanticProblem: SemanticSearchError?

    enum CodingKeys: String, CodingKey {
        case comics, latest, explained, incomplete, unexplained, favourites, tags, lastUpdate, database, databaseBytes
        case semanticSearch, semanticModel, embeddedComics, linkedPassages, writtenSituations, images, imageBytes,
            imagesMissing
    }

    /// Reads the counts of `database`, the model's status and the image cache's use.
    init(reading database: ComicDatabase, imagesDirectory: URL, model: SentenceModel) throws {
        let stats = try database.statistics()
        let path = database.path ?? ":memory:"
        let bytes = ["", "-wal"].reduce(0) { total, suffix in
            let size = (try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0
            return total + size
        }
        let semantic = try model.status(of: database)
        let cache = ImageCache(directory: imagesDirectory)
        let images = cache.usage()
        comics = stats.comics
        latest = stats.latest
        explained = stats.explained
        incomplete = stats.incompleteExplanations
        unexplained = stats.comics - stats.explained
        favourites = stats.favourites
        tags = stats.tags
        lastUpdate = stats.lastUpdate
        self.database = path
        databaseBytes = bytes
        semanticSearch = semantic.isOn
        semanticModel = semantic.model
        embeddedComics = semantic.embeddedComics
        let passages = try semantic.model.map { try database.embeddedLinkedPassageCounts(model: $0) }
        linkedPassages = passages?.linked ?? 0
        writtenSituations = passages?.written ?? 0
        self.images = images.images
        imageBytes = images.bytes
        imagesMissing = cache.missingCount()
        semanticProblem = semantic.problem
    }
}
