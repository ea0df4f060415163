import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 channel with ``RequestHeadLimitHandler`` in front of SwiftNIO's HTTP
/// decoder, which would answer a head past its own limit (80 KB) with a bare 400 and no JSON.
struct LimitedHTTP1Channel: ServerChildChannel {
    let http1: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(RequestHeadLimitHandler(logger: logger), position: .first)
        }.flatMap { http1.setup(channel: channel, logger: logger) }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// Reads the bytes of each request before the HTTP decoder does, and refuses with a JSON error
/// a request line longer than ``maximumRequestLine`` (414 `too-long`: a 1 MB query) or a head
/// longer than ``maximumHead`` (413 `too-large`). A body too large is the route's to refuse
/// (``FavouriteRoutes.maximumBodyBytes``), after which Hummingbird reads the rest and the connection
/// goes on. The answer goes out, the connection stops sending, and what the client
/// still sends is read and dropped (up to ``maximumDiscarded``) so that it reads the answer
/// rather than a reset connection.
///
/// Bodies are skipped by their `Content-Length`; after a chunked body the rest of the
/// connection is not looked at (the decoder's 80 KB limit and the routes' body limit remain).
final class RequestHeadLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let maximumRequestLine = 8 * 1024
    static let maximumHead = 32 * 1024
    static let maximumDiscarded = 16 << 20

    private enum State {
        /// In a request's head: its bytes so far.
        case head([UInt8])
        /// In a body: the bytes still to come.
        case body(remaining: Int)
        /// After a chunked body: not looked at any more.
        case passing
        /// Refused: the bytes read since.
        case refused(discarded: Int)
    }

    private var state = State.head([])
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if case .refused(let discarded) = state {
            state = .refused(discarded: discarded + buffer.readableBytes)
            if discarded + buffer.readableBytes > Self.maximumDiscarded { context.close(promise: nil) }
            return
        }
        var offset = buffer.readerIndex
        let end = buffer.writerIndex
        while offset < end {
            switch state {
            case .passing, .refused:
                offset = end
            case .body(let remaining):
                let skipped = min(remaining, end - offset)
                offset += skipped
                state = remaining == skipped ? .head([]) : .body(remaining: remaining - skipped)
            case .head(var bytes):
                state = .passing  // the array is not copied while it grows
                while offset < end {
                    bytes.append(buffer.getInteger(at: offset, as: UInt8.self)!)
                    offset += 1
                    if bytes.count >= 4, bytes.suffix(4).elementsEqual([13, 10, 13, 10]) { break }
                    if bytes.count > Self.maximumHead { break }
                }
                if let refusal = Self.refusal(ofHead: bytes) {
                    return refuse(refusal, context: context)
                }
                state = Self.isComplete(bytes) ? Self.after(head: bytes) : .head(bytes)
            }
        }
        context.fireChannelRead(data)
    }

    /// 414 or 413, or nil while the head is within the limits.
    private static func refusal(ofHead bytes: [UInt8]) -> APIError? {
        let lineEnd = bytes.firstRange(of: [13, 10])?.lowerBound
        if (lineEnd ?? bytes.count) > maximumRequestLine {
            return APIError(
                .uriTooLong, code: "too-long",
                message: "the request line is longer than \(maximumRequestLine / 1024) KB")
        }
        if bytes.count > maximumHead {
            return APIError(
                .contentTooLarge, code: "too-large",
                message: "the request's headers are larger than \(maximumHead / 1024) KB")
        }
        return nil
    }

    private static func isComplete(_ head: [UInt8]) -> Bool {
        head.count >= 4 && head.suffix(4).elementsEqual([13, 10, 13, 10])
    }

    /// What follows a complete head: its body, by `Content-Length`, or a chunked one.
    private static func after(head: [UInt8]) -> State {
        var length = 0
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n").dropFirst() {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2 else { continue }
            let name = field[0].trimmingCharacters(in: .whitespaces).lowercased()
            let value = field[1].trimmingCharacters(in: .whitespaces).lowercased()
            if name == "transfer-encoding", value.contains("chunked") { return .passing }
            if name == "content-length", let number = Int(value) { length = number }
        }
        return length > 0 ? .body(remaining: length) : .head([])
    }

    private func refuse(_ error: APIError, context: ChannelHandlerContext) {
        state = .refused(discarded: 0)
        logger.info("request refused before reading it: \(error.status.code) \(error.code)")
        let body = Array(#"{"error":{"code":"\#(error.code)","message":"\#(error.message)"}}"#.utf8)
        let head =
            [
                "HTTP/1.1 \(error.status.code) \(error.status.reasonPhrase)",
                "Content-Type: application/json; charset=utf-8",
                "Content-Length: \(body.count)",
                "Connection: close",
                "X-Content-Type-Options: nosniff",
                "Content-Security-Policy: \(APIServer.contentSecurityPolicy)",
            ].joined(separator: "\r\n") + "\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in
            let halfClosed = context.eventLoop.makePromise(of: Void.self)
            halfClosed.futureResult.whenFailure { _ in context.close(promise: nil) }
            context.close(mode: .output, promise: halfClosed)
        }
    }
}
