/// A parameter of a request, by the name the HTTP API gives it; each front end spells it its own
/// way (the command line's `--limit`, the API's `limit`).
public enum RequestParameter: String, Sendable, Hashable, CaseIterable {
    case query = "q"
    case limit, page, exact, explain, tag, tags, text, comic
    /// The image of `identify`, the body of `POST /api/identify`.
    case image
}

/// A request whose parameters break its rules, worded as one lowercase line by the parameter's
/// API name; the command line words it with its own option names (`Advice`).
public enum RequestError: Error, Equatable, CustomStringConvertible {
    /// A parameter the request cannot do without.
    case missing(RequestParameter)
    /// A value outside what the parameter takes; `allowed` says what it takes: "between 1 and 1000".
    case outOfRange(RequestParameter, value: String, allowed: String)
    /// A text longer than the parameter takes, in bytes of UTF-8.
    case tooLong(RequestParameter, length: Int, limit: Int)

    /// What is wrong, as one lowercase line without a full stop.
    public var description: String {
        switch self {
        case .missing(.query): "the query parameter q is missing"
        case .missing(.image): "the image is empty"
        case .missing(let parameter): "the parameter \(parameter.rawValue) is missing"
        case .outOfRange(let parameter, let value, let allowed):
            "\(parameter.rawValue) must be \(allowed), not \(quoted(value))"
        case .tooLong(.text, _, let limit): "the passage is over \(limit) bytes: send at most that much"
        case .tooLong(.image, _, let limit): "the image is over \(limit >> 20) MB: no image of a comic is that large"
        case .tooLong(let parameter, let length, let limit):
            "\(parameter.rawValue) is too long (\(length) bytes; the limit is \(limit) bytes)"
        }
    }

    var errorClass: ErrorClass {
        switch self {
        case .missing(.query): ErrorClass(.invalidInput, code: "missing-query")
        case .missing, .outOfRange: ErrorClass(.invalidInput, code: "bad-parameter")
        case .tooLong(.text, _, _): ErrorClass(.invalidInput, code: "passage-too-large")
        case .tooLong(.image, _, _): ErrorClass(.invalidInput, code: "image-too-large")
        case .tooLong: ErrorClass(.invalidInput, code: "too-long")
        }
    }
}

/// The parameters of a request as text by name, as a URL's query or a form gives them: what the
/// API and the page read requests from.
public protocol RequestParameters {
    /// The value given for `name`, or nil when it is not given.
    ///
    /// - Parameter name: the parameter's API name (``RequestParameter/rawValue``).
    /// - Returns: the text as given, possibly empty; nil when the parameter is absent.
    func value(named name: String) -> String?
}

extension RequestParameters {
    /// The whole number given for `parameter`, or `default` when it is not given.
    ///
    /// - Parameters:
    ///   - parameter: which parameter.
    ///   - default: the value when it is not given.
    ///   - range: the values it takes.
    ///   - allowed: what it takes, in words, for the error.
    /// - Returns: the number given, or `default`.
    /// - Throws: ``RequestError/outOfRange(_:value:allowed:)`` for text that is no number in
    ///   `range`.
    func number(
        _ parameter: RequestParameter, default: Int, in range: ClosedRange<Int>, allowed: String
    ) throws(RequestError) -> Int {
        guard let text = value(named: parameter.rawValue) else { return `default` }
        guard let number = Int(text), range.contains(number) else {
            throw .outOfRange(parameter, value: text, allowed: allowed)
        }
        return number
    }

    /// Whether `parameter` is set: absent, `0` or `false` is no; empty, `1` or `true` is yes.
    ///
    /// - Parameter parameter: which parameter.
    /// - Returns: whether the flag is set.
    /// - Throws: ``RequestError/outOfRange(_:value:allowed:)`` for any other text.
    func flag(_ parameter: RequestParameter) throws(RequestError) -> Bool {
        switch value(named: parameter.rawValue) {
        case nil, "0", "false": false
        case "", "1", "true": true
        case let text?: throw .outOfRange(parameter, value: text, allowed: "1, true, 0 or false")
        }
    }
}

/// The words for a range of whole numbers in an error: "between 1 and 1000", "1 or more".
func allowedWords(_ range: ClosedRange<Int>) -> String {
    range.upperBound == .max ? "\(range.lowerBound) or more" : "between \(range.lowerBound) and \(range.upperBound)"
}
