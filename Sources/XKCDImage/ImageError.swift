/// Why an image cannot be drawn. Messages are short and lowercase, for one line after "no image: ".
public enum ImageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not a PNG, JPEG or GIF.
    case unknownFormat
    /// The header is readable but the pixels are not ("corrupt JPEG", "bad zlib header"…).
    case damaged(reason: String)
    /// More pixels than ``ImageDecoder/maxPixels``: decoding would take too much memory.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// An animated GIF of more frames than ``ImageDecoder/maxFrames``: no comic has so many.
    case tooManyFrames(limit: Int)
    /// libchafa, opened for the first drawing, is not installed (or lacks a function).
    case libraryMissing(reason: String)

    public var description: String {
        switch self {
        case .unknownFormat:
            "the file is not a PNG, JPEG or GIF image"
        case .damaged(let reason):
            "the image is damaged (\(reason))"
        case .tooLarge(let width, let height, let limit):
            "the image is too large to decode (\(width)×\(height) pixels; the limit is \(limit / 1_000_000) million)"
        case .tooManyFrames(let limit):
            "the animation has more than \(limit) frames, more than any comic"
        case .libraryMissing(let reason):
            "drawing images needs libchafa (Debian's libchafa0, which `make deps` installs): \(reason)"
        }
    }
}
