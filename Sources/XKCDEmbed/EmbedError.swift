/// A problem with the sentence-embedding model, worded for the person running the tool.
public enum EmbedError: Error, Equatable, CustomStringConvertible {
    /// The model directory, or the weights file in it, does not exist.
    case modelMissing(path: String)
    /// A file of the model is there but cannot be used: truncated, not the expected format,
    /// or made for another model.
    case modelDamaged(path: String, reason: String)
    /// The model is there but this user may not read it.
    case modelUnreadable(path: String)
    /// oneDNN, which computes the encoder's matrix products, is not installed (or lacks a
    /// function): it is loaded when the first query is embedded, not when the program starts.
    case matrixLibraryMissing(reason: String)
    /// oneDNN, which computes the encoder's matrix products, could not start on this machine.
    case unsupportedProcessor

    public var description: String {
        switch self {
        case .modelMissing(let path): "no sentence-embedding model at \(path)"
        case .modelDamaged(let path, let reason): "the sentence-embedding model at \(path) is damaged: \(reason)"
        case .modelUnreadable(let path): "cannot read the sentence-embedding model at \(path) (permission denied)"
        case .matrixLibraryMissing(let reason):
            "the sentence model needs oneDNN (Debian's libdnnl2, which `make deps` installs): \(reason)"
        case .unsupportedProcessor: "the matrix library (oneDNN) cannot run on this processor"
        }
    }
}
