import CCurl
import Foundation
import Synchronization
import XKCDModel

/// Performs one GET with libcurl, held to limits: a body larger than ``Limits/maxBodyBytes``
/// (announced, or as it arrives after gzip is inflated), a transfer longer than
/// ``Limits/deadline`` in all, and a redirect to another scheme than http(s) or to a host the
/// configuration does not name, are cut off and reported as a ``Refusal``.
///
/// libcurl rather than URLSession: on Linux, FoundationNetworking hands every piece libcurl
/// inflates to its delegate queue without waiting, and a 1 MB gzip bomb held 1 GiB of pieces
/// (1.2 GB resident) before the first could be counted. Here the write callback counts each
/// piece as libcurl makes it and stops the transfer at the limit. Nor its request and response
/// types: FoundationNetworking links libcurl, which this module opens only for the first request
/// (CCurl), so that the one executable's other roles never load it.
struct Transfers: Sendable {
    /// A GET: where, and the headers to send.
    struct Request: Sendable {
        var url: URL
        var headers: [String: String] = [:]
    }

    /// What the server answered; the header names lower-cased.
    struct Response: Sendable {
        var url: URL
        var statusCode: Int
        var headers: [String: String]
    }

    /// Why a transfer failed before a response was whole (libcurl's codes, told apart for the
    /// messages and for whether to try again).
    enum Failure: Error, Equatable {
        case badURL, unsupportedURL, cancelled, timedOut, cannotConnectToHost, notConnectedToInternet, cannotFindHost
        case secureConnectionFailed, networkConnectionLost, badServerResponse, notStarted
        /// libcurl could not be opened: the reason, without a path.
        case libraryMissing(String)
    }

    struct Limits: Sendable {
        var maxBodyBytes: Int
        var deadline: Duration
        /// No byte for this long ends a try (an idle timeout).
        var idleTimeout: Duration
        /// Where a redirect may go: `host:port` of the configured sites, as ``site(of:)`` spells
        /// them.
        var hosts: Set<String>

        /// `host:port` of `url`, the port given or the scheme's own (80, 443); nil without a host.
        static func site(of url: URL) -> String? {
            guard let host = url.host?.lowercased() else { return nil }
            let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            return "\(host):\(port)"
        }
    }

    /// Why a transfer was cut off.
    struct Refusal: Error, Equatable {
        var reason: String
        /// A deadline may pass by bad luck; a body too large or a redirect elsewhere will recur.
        var isRetryable: Bool
    }

    typealias Outcome = Result<(Data, Response), any Error>

    static let maxRedirects = 5

    let limits: Limits

    /// libcurl opened and initialised, once per process; the reason when it could not be.
    private static let initialized: Failure? = {
        var reason = [CChar](repeating: 0, count: 160)
        guard xkcd_curl_load(&reason, reason.count) != 0 else {
            return .libraryMissing(
                String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK ? nil : .notStarted
    }()

    /// Runs `request` (a GET) on a thread of its own, following allowed redirects; the task's
    /// cancellation stops it.
    func run(_ request: Request) async -> Outcome {
        let cancelled = CancelFlag()
        return await withTaskCancellationHandler {
            // libcurl blocks its thread for the whole transfer.
            await offTheTaskPool { perform(request, cancelled: cancelled) }
        } onCancel: {
            cancelled.flag.store(true, ordering: .relaxed)
        }
    }

    private func perform(_ request: Request, cancelled: CancelFlag) -> Outcome {
        if let failure = Self.initialized { return .failure(failure) }
        var url = request.url
        let start = ContinuousClock.now
        for _ in 0...Self.maxRedirects {
            let remaining = limits.deadline - (ContinuousClock.now - start)
            let hop = performOnce(request, url: url, timeLeft: remaining, cancelled: cancelled)
            let (response, location): (Response, URL?)
            switch hop {
            case .failure(let error): return .failure(error)
            case .success(let (_, hopResponse, hopLocation)): (response, location) = (hopResponse, hopLocation)
            }
            guard (300..<400).contains(response.statusCode), let location else {
                return hop.map { ($0.0, $0.1) }
            }
            guard isAllowed(location, redirectedFrom: request.url) else {
                let hosts = limits.hosts.sorted().joined(separator: " or ")
                return .failure(
                    Refusal(
                        reason:
                            "redirected to \(location.absoluteString.prefix(100)), which is not http(s) on \(hosts)",
                        isRetryable: false))
            }
            url = location
        }
        return .failure(
            Refusal(
                reason: "redirected more than \(Self.maxRedirects) times (the server redirects in a loop)",
                isRetryable: false))
    }

    /// An http(s) URL on a configured site or on the site first asked (an image host that is
    /// not one of the configured sites). Another port of the same host is another server, but
    /// a site's move from http to https (port 80 to 443) is allowed.
    private func isAllowed(_ url: URL, redirectedFrom original: URL?) -> Bool {
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? ""), let site = Limits.site(of: url),
            let host = url.host?.lowercased()
        else { return false }
        let sites = limits.hosts.union(original.flatMap(Limits.site(of:)).map { [$0] } ?? [])
        if sites.contains(site) { return true }
        let usesOwnPort = url.port == nil || url.port == (url.scheme?.lowercased() == "https" ? 443 : 80)
        return usesOwnPort && (sites.contains("\(host):80") || sites.contains("\(host):443"))
    }

    private func tooLarge(announced bytes: Int) -> Refusal {
        Refusal(
            reason: "the response is larger than the limit of \(limits.maxBodyBytes >> 20) MB"
                + (bytes > 0 ? " (\(bytes >> 20) MB announced)" : ""),
            isRetryable: false)
    }

    /// One request without following redirects: the body, the response, and where a 3xx points.
    private func performOnce(
        _ request: Request, url: URL, timeLeft: Duration, cancelled: CancelFlag
    ) -> Result<(Data, Response, URL?), any Error> {
        guard timeLeft > .zero else { return .failure(deadlinePassed) }
        guard let handle = curl_easy_init() else { return .failure(Failure.notStarted) }
        defer { curl_easy_cleanup(handle) }
        let received = Received(limit: limits.maxBodyBytes, cancelled: cancelled)
        let context = Unmanaged.passUnretained(received).toOpaque()
        var headers: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers {
            headers = curl_slist_append(headers, "\(name): \(value)")
        }
        defer { curl_slist_free_all(headers) }
        let milliseconds = { (duration: Duration) in max(1, Int(duration.seconds * 1000)) }
        let hopStart = ContinuousClock.now
        let code: CURLcode = url.absoluteString.withCString { address in
            "http,https".withCString { protocols in
                "".withCString { encodings in
                    _ = xkcd_curl_setopt_pointer(handle, CURLOPT_URL, address)
                    _ = xkcd_curl_setopt_pointer(handle, CURLOPT_PROTOCOLS_STR, protocols)
                    _ = xkcd_curl_setopt_pointer(handle, CURLOPT_ACCEPT_ENCODING, encodings)  // gzip, inflated
                    _ = xkcd_curl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headers)
                    _ = xkcd_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                    _ = xkcd_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                    _ = xkcd_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(timeLeft))
                    _ = xkcd_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(limits.idleTimeout))
                    _ = xkcd_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
                    _ = xkcd_curl_setopt_long(
                        handle, CURLOPT_LOW_SPEED_TIME, max(1, milliseconds(limits.idleTimeout) / 1000))
                    _ = xkcd_curl_setopt_long(handle, CURLOPT_MAXFILESIZE, limits.maxBodyBytes)
                    _ = xkcd_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION, receiveBody)
                    _ = xkcd_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
                    _ = xkcd_curl_setopt_write(handle, CURLOPT_HEADERFUNCTION, receiveHeader)
                    _ = xkcd_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
                    _ = xkcd_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
                    _ = xkcd_curl_setopt_progress(handle, checkCancelled)
                    _ = xkcd_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
                    return curl_easy_perform(handle)
                }
            }
        }
        switch code {
        case CURLE_OK: break
        case CURLE_WRITE_ERROR where received.isTooLarge: return .failure(tooLarge(announced: 0))
        case CURLE_FILESIZE_EXCEEDED: return .failure(tooLarge(announced: received.announcedLength ?? 0))
        case CURLE_ABORTED_BY_CALLBACK: return .failure(Failure.cancelled)
        case CURLE_OPERATION_TIMEDOUT:
            // The whole-transfer limit, or no byte for the idle timeout.
            let isWholeTransfer = ContinuousClock.now - hopStart >= timeLeft - .milliseconds(200)
            return .failure(isWholeTransfer ? deadlinePassed : Failure.timedOut)
        case CURLE_COULDNT_CONNECT:
            // Refused, or no route to the host (no network): told apart for the message.
            var osError = 0
            _ = xkcd_curl_getinfo_long(handle, CURLINFO_OS_ERRNO, &osError)
            let unreachable = osError == Int(ENETUNREACH) || osError == Int(EHOSTUNREACH)
            return .failure(unreachable ? Failure.notConnectedToInternet : Failure.cannotConnectToHost)
        case CURLE_COULDNT_RESOLVE_HOST: return .failure(Failure.cannotFindHost)
        case CURLE_UNSUPPORTED_PROTOCOL: return .failure(Failure.unsupportedURL)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION: return .failure(Failure.secureConnectionFailed)
        default: return .failure(Failure.networkConnectionLost)
        }
        var status = 0
        _ = xkcd_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var redirect: UnsafeMutablePointer<CChar>?
        _ = xkcd_curl_getinfo_string(handle, CURLINFO_REDIRECT_URL, &redirect)
        // The Location as sent, when it is absolute: libcurl resolves only the schemes it allows.
        let location =
            received.headers["location"].flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
            ?? redirect.flatMap { URL(string: String(cString: $0)) }
        guard status > 0 else { return .failure(Failure.badServerResponse) }
        return .success((received.body, Response(url: url, statusCode: status, headers: received.headers), location))
    }

    private var deadlinePassed: Refusal {
        Refusal(reason: "not finished within \(limits.deadline.components.seconds) s", isRetryable: true)
    }
}

/// Set when the task that asked is cancelled; read by libcurl's progress callback.
private final class CancelFlag: Sendable {
    let flag = Atomic<Bool>(false)
}

/// What one transfer received, filled by libcurl's callbacks on the thread that performs it.
private final class Received {
    let limit: Int
    let cancelled: CancelFlag
    var body = Data()
    var headers: [String: String] = [:]
    var isTooLarge = false
    var announcedLength: Int?

    init(limit: Int, cancelled: CancelFlag) {
        self.limit = limit
        self.cancelled = cancelled
    }
}

/// Appends a piece of the body (inflated when gzip), or stops the transfer past the limit.
private func receiveBody(
    _ bytes: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let bytes, let context else { return 0 }
    let received = Unmanaged<Received>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard received.body.count + length <= received.limit else {
        received.isTooLarge = true
        return 0
    }
    received.body.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: length)
    return length
}

/// Keeps one header line, lower-cased name; a status line starts a new response.
private func receiveHeader(
    _ bytes: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let bytes, let context else { return 0 }
    let received = Unmanaged<Received>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    if line.hasPrefix("HTTP/") {
        received.headers = [:]
    } else if let colon = line.firstIndex(of: ":") {
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        received.headers[name] = value
        if name == "content-length" { received.announcedLength = Int(value) }
    }
    return length
}

/// Ends the transfer when the task that asked for it was cancelled.
private func checkCancelled(
    _ context: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t
) -> Int32 {
    guard let context else { return 0 }
    return Unmanaged<Received>.fromOpaque(context).takeUnretainedValue().cancelled.flag.load(ordering: .relaxed) ? 1 : 0
}
