import FoundationEssentials

/// Everything that can go wrong while fetching or decoding a comic or an explanation.
///
/// Messages are short, lowercase and name what was asked for, so the CLI can print them as they are:
///
/// ```swift
/// FetchError.httpStatus(host: "xkcd.com", path: "/327/info.0.json", status: 500, attempts: 4).description
/// // xkcd.com answered HTTP 500 for /327/info.0.json after 4 tries
/// ```
///
/// "No such comic" (HTTP 404, or no mirror file) and "explanation not written yet" are not errors:
/// ``ComicSource`` reports them as `nil` and ``ExplainLookup/notWrittenYet``.
public enum FetchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered a status that is neither success nor "no such comic", on every try.
    case httpStatus(host: String, path: String, status: Int, attempts: Int)
    /// The server kept answering 429 (or 503 with `Retry-After`).
    case rateLimited(host: String, path: String, attempts: Int)
    /// No answer within the request timeout, on every try.
    case timedOut(host: String, path: String, attempts: Int)
    /// The connection could not be made or broke off.
    case connectionFailed(host: String, path: String, reason: String, attempts: Int)
    /// Fewer body bytes arrived than `Content-Length` announced.
    case incompleteBody(host: String, path: String, expected: Int, received: Int, attempts: Int)
    /// The body is not JSON at all (often a truncated download). `source` names the URL or file.
    case malformedJSON(source: String, detail: String)
    /// The body is JSON but not the shape the API documents (a missing key, a bad date).
    case unexpectedJSON(source: String, detail: String)
    /// The explain xkcd wiki answered with an error object other than `missingtitle`.
    case apiError(source: String, code: String, info: String)
    /// The response was cut off: too large, too slow in all, or redirected elsewhere.
    case refused(host: String, path: String, reason: String, attempts: Int)
    /// A mirror or cache file exists but cannot be read.
    case unreadableFile(path: String, reason: String)
    /// A raw response could not be written to the cache.
    case cacheWriteFailed(path: String, reason: String)
    /// ``CachedComicSource`` was asked for something the cache does not hold.
    case notCached(what: String)
    /// libcurl, opened for the first request, is not installed (or lacks a function).
    case libraryMissing(reason: String)

    public var description: String {
        switch self {
        case .httpStatus(let host, let path, let status, let attempts):
            return "\(host) answered HTTP \(status) for \(path) \(Self.after(attempts))"
        case .rateLimited(let host, let path, let attempts):
            return "rate limited by \(host) for \(path) \(Self.after(attempts))"
        case .timedOut(let host, let path, let attempts):
            return "timed out fetching \(host)\(path) \(Self.after(attempts))"
        case .connectionFailed(let host, let path, let reason, let attempts):
            return "could not connect to \(host) for \(path) (\(reason)) \(Self.after(attempts))"
        case .incompleteBody(let host, let path, let expected, let received, let attempts):
            return "incomplete body from \(host)\(path): \(received) of \(expected) bytes \(Self.after(attempts))"
        case .malformedJSON(let source, let detail):
            return "malformed JSON from \(source) (truncated?): \(detail)"
        case .unexpectedJSON(let source, let detail):
            return "unexpected JSON from \(source): \(detail)"
        case .apiError(let source, let code, let info):
            return "\(source) answered API error \(code): \(info)"
        case .refused(let host, let path, let reason, let attempts):
            return "refused \(host)\(path): \(reason) \(Self.after(attempts))"
        case .unreadableFile(let path, let reason):
            return "could not read \(path): \(reason)"
        case .cacheWriteFailed(let path, let reason):
            return "could not write the raw cache file \(path): \(reason)"
        case .notCached(let what):
            return "\(what) is not in the raw cache; run `index` without --rebuild first"
        case .libraryMissing(let reason):
            return "fetching needs libcurl (Debian's libcurl4, which `make deps` installs): \(reason)"
        }
    }

    /// What went wrong, without the path asked for or the tries: the same for every request to
    /// a host that is down, so that a run can tell a host that fails every request from one
    /// that failed a few ("could not connect to imgs.xkcd.com (connection refused)").
    public var cause: String {
        switch self {
        case .httpStatus(let host, _, let status, _): "\(host) answered HTTP \(status)"
        case .rateLimited(let host, _, _): "rate limited by \(host)"
        case .timedOut(let host, _, _): "\(host) did not answer in time"
        case .connectionFailed(let host, _, let reason, _): "could not connect to \(host) (\(reason))"
        case .incompleteBody(let host, _, _, _, _): "incomplete bodies from \(host)"
        case .refused(let host, _, let reason, _): "refused \(host): \(reason)"
        case .malformedJSON, .unexpectedJSON, .apiError, .unreadableFile, .cacheWriteFailed, .notCached,
            .libraryMissing:
            description
        }
    }

    private static func after(_ attempts: Int) -> String {
        attempts == 1 ? "after 1 try" : "after \(attempts) tries"
    }
}
