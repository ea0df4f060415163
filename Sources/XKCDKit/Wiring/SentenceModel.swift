import FoundationEssentials
import Synchronization
import XKCDEmbed
import XKCDModel
import XKCDStore

/// The sentence model that finds comics by what a query means, looked for and loaded the first
/// time a query needs it: most searches (numbers, titles, filters, short queries) never do, and
/// even looking for the model files cost a search process a tenth of its work.
///
/// ```swift
/// let model = SentenceModel(directory: SentenceEncoder.locateModel())
/// switch model.encoder() {
/// case .success(let encoder): encoder.embedding(for: "a couple arguing at IKEA")
/// case .failure(let problem): print(problem)   // "semantic search is off: …"
/// }
/// ```
public final class SentenceModel: Sendable {
    private let locate: @Sendable () -> URL?
    private let found = Mutex<URL??>(nil)
    private let loaded = Mutex<Result<SentenceEncoder, SemanticSearchError>?>(nil)

    /// The model in `directory`; nil for none.
    ///
    /// - Parameter directory: the model's files, looked at only when a query first needs them.
    public convenience init(directory: URL?) {
        self.init(locating: { directory })
    }

    /// The model in the directory `locate` returns when first asked.
    private init(locating locate: @escaping @Sendable () -> URL?) {
        self.locate = locate
    }

    /// The model found where the executables look for it (see `SentenceEncoder.locateModel`),
    /// looked for when first needed.
    public static func located() -> SentenceModel {
        SentenceModel(locating: { SentenceEncoder.locateModel() })
    }

    /// The model directory, or nil when none was found.
    public var directory: URL? {
        found.withLock { found in
            if let found { return found }
            let directory = locate()
            found = .some(directory)
            return directory
        }
    }

    /// The encoder, loaded on first use; the same result every later call.
    public func encoder() -> Result<SentenceEncoder, SemanticSearchError> {
        loaded.withLock { loaded in
            load(into: &loaded) { directory throws(EmbedError) in try SentenceEncoder(modelDirectory: directory) }
        }
    }

    /// The vectors of `texts` and the identity of the model that made them. A first use loads
    /// the model and embeds `texts` in the same pass over its weights as its check
    /// (`SentenceEncoder.open(modelDirectory:embedding:)`): for a one-shot search, half the work of
    /// embedding its query.
    ///
    /// - Parameter texts: the texts to embed, each a query, a sentence or a passage.
    /// - Returns: a vector for each text, in order, and the model's identity; or why there is no
    ///   model to make them.
    public func embeddings(of texts: [String]) -> Result<(vectors: [[Float]], model: String), SemanticSearchError> {
        var first: [[Float]]?
        let result = loaded.withLock { loaded in
            load(into: &loaded) { directory throws(EmbedError) in
                let (encoder, vectors) = try SentenceEncoder.open(modelDirectory: directory, embedding: texts)
                first = vectors
                return encoder
            }
        }
        return result.map { encoder in (first ?? encoder.embeddings(for: texts), encoder.identity) }
    }

    /// `loaded`, or what `open` makes of the model directory when nothing was loaded yet.
    private func load(
        into loaded: inout Result<SentenceEncoder, SemanticSearchError>?,
        _ open: (URL) throws(EmbedError) -> SentenceEncoder
    ) -> Result<SentenceEncoder, SemanticSearchError> {
        if let loaded { return loaded }
        let result: Result<SentenceEncoder, SemanticSearchError>
        if let directory {
            do throws(EmbedError) {
                result = .success(try open(directory))
            } catch {
                result = .failure(.model(error))
            }
        } else {
            result = .failure(.noModel)
        }
        loaded = result
        return result
    }
}

/// Why a search could not use the meaning of its query; the search then ranks by words alone.
public enum SemanticSearchError: Error, Equatable, CustomStringConvertible {
    /// No model directory was found.
    case noModel
    /// The model was found but could not be loaded.
    case model(EmbedError)
    /// The index holds no vectors made by this model.
    case noVectors
    /// The model's vector of the query is no unit vector (NaN): its weights are damaged.
    case unusableEmbedding

    /// The line a front end shows: search by meaning is off, why, and words still work.
    public var description: String { "semantic search is off: \(reason); searching by words only" }

    /// What is wrong, without what follows from it nor what to do about it (the front end's to add).
    public var reason: String {
        switch self {
        case .noModel: "no sentence model found"
        // A model file's own text (a tensor's name, its identity) may hold anything.
        case .model(let error): escaped("\(error)", limit: 300)
        case .noVectors: "the index has no comic vectors for this model"
        case .unusableEmbedding: "the sentence model made no usable vector of this query; its weights are damaged"
        }
    }
}

/// Whether searches rank by meaning, as `stats` reports it.
public struct SemanticSearchStatus: Sendable, Equatable {
    /// The model's identity, when it loads.
    public var model: String?
    /// Comics holding a vector made by that model.
    public var embeddedComics: Int
    /// Why search by meaning is off; nil when it is on.
    public var problem: SemanticSearchError?

    /// Whether searches rank by meaning: the model loads and the index holds its vectors.
    public var isOn: Bool { problem == nil }
}

extension SentenceModel {
    /// Whether searches of `database` can rank by meaning, and with how many comics.
    ///
    /// - Parameter database: the index whose vectors are counted.
    /// - Returns: the model's identity, how many comics it embedded, and what is wrong if
    ///   anything is.
    /// - Throws: `StoreError` when the index cannot be read.
    public func status(of database: ComicDatabase) throws -> SemanticSearchStatus {
        switch encoder() {
        case .failure(let problem):
            return SemanticSearchStatus(model: nil, embeddedComics: 0, problem: problem)
        case .success(let encoder):
            let embedded = try database.embeddedComicCount(model: encoder.identity)
            return SemanticSearchStatus(
                model: encoder.identity, embeddedComics: embedded, problem: embedded == 0 ? .noVectors : nil)
        }
    }
}
