import GRDB

extension RankingIndex {
    /// Calls `body` with each token FTS5 would index for `text`.
    static func forEachToken(in text: String, tokenizer: any FTS5Tokenizer, _ body: (String) -> Void) throws {
        try forEachTokenBytes(in: text, tokenizer: tokenizer) { bytes in
            body(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Calls `body` with the bytes of each token.
    static func forEachTokenBytes(
        in text: String, tokenizer: any FTS5Tokenizer, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws {
        guard !text.isEmpty else { return }
        var utf8 = Array(text.utf8)
        try forEachTokenBytes(in: &utf8, tokenizer: tokenizer, body)
    }

    /// Calls `body` with the bytes of each token of the UTF-8 text `utf8` (left unchanged).
    static func forEachTokenBytes(
        in utf8: inout [UInt8], tokenizer: any FTS5Tokenizer, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws {
        guard !utf8.isEmpty else { return }
        // Tokens arrive through a C callback; the context carries the Swift closure to it.
        try withoutActuallyEscaping(body) { body in
            var context = TokenSink(body: body)
            let code = utf8.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pText in
                    withUnsafeMutablePointer(to: &context) { contextPointer in
                        tokenizer.tokenize(
                            context: UnsafeMutableRawPointer(contextPointer), tokenization: .document,
                            pText: pText, nText: CInt(buffer.count)
                        ) { context, _, pToken, nToken, _, _ in
                            guard let context, let pToken else { return 0 }
                            let sink = context.assumingMemoryBound(to: TokenSink.self)
                            sink.pointee.body(UnsafeRawBufferPointer(start: pToken, count: Int(nToken)))
                            return 0
                        }
                    }
                }
            }
            guard code == 0 else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
        }
    }

    private struct TokenSink {
        var body: (UnsafeRawBufferPointer) -> Void
    }
}
