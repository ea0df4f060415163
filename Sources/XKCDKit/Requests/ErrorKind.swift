import XKCDEmbed
import XKCDOCR
import XKCDQuery
import XKCDStore

/// What a failure means to whoever asked, whatever its cause: the one classification every front
/// end maps from (the command line to an exit status and advice, the API and the page to an HTTP
/// status). The cause and its words stay with the error; what to do about it is the front end's.
public enum ErrorKind: Sendable, Hashable {
    /// The request itself is wrong: a malformed query, a parameter out of its range, a bad tag.
    case invalidInput
    /// The request is well formed but names nothing there: an unknown comic, no favourite.
    case notFound
    /// The index cannot answer now (none yet, being built, damaged, foreign); try again after
    /// `retryAfter` when given.
    case unavailable(retryAfter: Duration?)
    /// A change was asked of an index that may not be written.
    case readOnly
    /// Another process holds the index; the same request may succeed in a moment.
    case busy
    /// A fault of this program or its machine: nothing the asker can change.
    case `internal`
}

/// An error's kind and a short stable name of its cause, as the HTTP API gives it in
/// `{"error": {"code": …}}`: `unreadable-query`, `bad-comic`, `not-found`.
public struct ErrorClass: Sendable, Hashable {
    /// What the failure means to the asker, which decides the exit status or HTTP status.
    public var kind: ErrorKind
    /// The cause's short stable name, such as `bad-comic`, for a client to tell failures apart.
    public var code: String
    /// What is wrong with the index file, when that is the cause: the command line says what to
    /// do about each (`Advice`); a server says only that it has no index to read.
    public var indexProblem: IndexProblem?

    /// A class with no index problem.
    ///
    /// - Parameters:
    ///   - kind: what the failure means to the asker.
    ///   - code: the stable name of its cause.
    public init(_ kind: ErrorKind, code: String) {
        self.kind = kind
        self.code = code
    }

    /// The class of any error the library throws; anything it does not know is `internal`.
    ///
    /// - Parameter error: an error thrown by a request, the library, the engine or the index.
    public init(of error: any Error) {
        switch error {
        case let error as RequestError: self = error.errorClass
        case is QueryError, is SearchError: self.init(.invalidInput, code: "unreadable-query")
        case let error as LibraryError: self = error.errorClass
        case let error as StoreError: self = error.errorClass
        case is IndexFileError: self.init(.unavailable(retryAfter: nil), code: "index-unavailable")
        case OCRError.notAnImage: self.init(.invalidInput, code: "bad-image")
        case OCRError.tooLarge, OCRError.tooManyFrames: self.init(.invalidInput, code: "image-too-large")
        case is OCRError: self.init(.unavailable(retryAfter: nil), code: "ocr-unavailable")
        default: self.init(.internal, code: "internal")
        }
    }
}

extension LibraryError {
    var errorClass: ErrorClass {
        switch self {
        case .notANumber, .belowFirst: ErrorClass(.invalidInput, code: "bad-comic")
        case .invalidTag: ErrorClass(.invalidInput, code: "bad-tag")
        case .malformedExport, .importRefused: ErrorClass(.invalidInput, code: "bad-file")
        case .cannotRead, .cannotWrite: ErrorClass(.unavailable(retryAfter: nil), code: "file-unavailable")
        case .notYetPublished, .skipped404, .notIndexed, .emptyIndex, .noExplanation, .noCurrentComic, .nothingAfter,
            .nothingBefore, .notAFavourite, .noFavourites, .noFavouritesTagged:
            ErrorClass(.notFound, code: "not-found")
        }
    }
}

/// What is wrong with an index (or vector) file, for the front end's advice.
public enum IndexProblem: Sendable, Hashable {
    /// An empty file where the index should be: one can be built there.
    case emptyFile(path: String)
    /// Another program's SQLite database.
    case foreignDatabase
    /// A damaged index, to be moved away and built again.
    case damaged
    /// An index of an earlier version that this process may not bring up to date.
    case needsUpdate
    /// A file given as the comics' vectors that holds none.
    case notAVectorFile
    /// The ranking data is damaged or another version's: the index must be rebuilt.
    case rankingDataDamaged
}

extension StoreError {
    var errorClass: ErrorClass {
        var errorClass = kindAndCode
        errorClass.indexProblem =
            switch self {
            case .emptyFile(let path): .emptyFile(path: path)
            case .foreignDatabase: .foreignDatabase
            case .damaged: .damaged
            case .needsUpdate: .needsUpdate
            case .notAVectorFile: .notAVectorFile
            case .rankingDataDamaged: .rankingDataDamaged
            default: nil
            }
        return errorClass
    }

    private var kindAndCode: ErrorClass {
        switch self {
        case .readOnly: ErrorClass(.readOnly, code: "read-only")
        case .busy: ErrorClass(.busy, code: "busy")
        case .indexRunInProgress, .beingBuilt: ErrorClass(.unavailable(retryAfter: .seconds(5)), code: "index-building")
        case .cannotOpen, .notAnIndex, .notAVectorFile, .emptyFile, .foreignDatabase, .notADatabase, .damaged,
            .needsUpdate:
            ErrorClass(.unavailable(retryAfter: nil), code: "index-unavailable")
        case .rankingDataDamaged: ErrorClass(.unavailable(retryAfter: nil), code: "index-unavailable")
        case .cannotWrite, .failed: ErrorClass(.internal, code: "internal")
        }
    }
}
