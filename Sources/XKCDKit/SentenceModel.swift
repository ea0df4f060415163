import Foundation
import Synchronization
import XKCDEmbed

/// The sentence model that finds comics by what a query means, loaded the first time a query
/// needs it: most searches (numbers, titles, filters, short queries) never do, and loading
/// costs a search process more than the search itself.
///
/// ```swift
/// let model = SentenceModel(directory: SentenceEncoder.locateModel())
/// switch model.encoder() {
/// case .success(let encoder): encoder.embedding(for: "a couple arguing at IKEA")
/// case .failure(let problem): print(problem)   // "semantic search is off: …"
/// }
/// ```
public final class SentenceModel: Sendable {
    /// The model directory, or nil when none was found.
    public let directory: URL?
    private let loaded = Mutex<Result<SentenceEncoder, SemanticSearchError>?>(nil)

    public init(directory: URL?) {
        self.directory = directory
    }

    /// The model found where the executables look for it (see `SentenceEncoder.locateModel`).
    public static func located() -> SentenceModel {
        SentenceModel(directory: SentenceEncoder.locateModel())
    }

    /// The encoder, loaded on first use; the same result every later call.
    public func encoder() -> Result<SentenceEncoder, SemanticSearchError> {
        loaded.withLock { loaded in
            if let loaded { return loaded }
            let result: Result<SentenceEncoder, SemanticSearchError>
            if let directory {
                do throws(EmbedError) {
                    result = .success(try SentenceEncoder(modelDirectory: directory))
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
}

/// Why a search could not use the meaning of its query; the search then ranks by words alone.
public enum SemanticSearchError: Error, Equatable, CustomStringConvertible {
    /// No model directory was found.
    case noModel
    /// The model was found but could not be loaded.
    case model(EmbedError)
    /// The index holds no vectors made by this model.
    case noVectors

    public var description: String {
        switch self {
        case .noModel:
            "semantic search is off: no sentence model found (run `make model`, or set XKCD_SEARCH_MODEL to its directory); searching by words only"
        case .model(let error):
            "semantic search is off: \(error); searching by words only"
        case .noVectors:
            "semantic search is off: the index has no comic vectors for this model (run `xkcd-search index` to add them); searching by words only"
        }
    }
}
