import Foundation
import GRDB

/// Per-term, per-field statistics for BM25F ranking, kept beside the FTS5 tables.
///
/// FTS5's `bm25()` scores one row at a time from its position lists, which makes an OR of a
/// dozen words rank most of the corpus slowly (tens of milliseconds), and it cannot tell which
/// query words a row matched. This index stores, for every stemmed term, the comics that hold
/// it with the term's frequency in each field, so ranking reads one small blob per query word
/// and scores with field-aware BM25F, query coverage and title matches.
///
/// Terms come from the same tokenizer as `comicSearch` (porter over unicode61), run through
/// SQLite itself, so a query word is stemmed exactly as FTS5 stems it. Exact word forms (the
/// tokens of `comicExact`) are kept too, as `=word` with the comics holding them, for the
/// exact-form boost and to tell a misspelling from a rare word.
struct RankingIndex {
    static let fieldCount = 4  // title, alt, transcript, explanation: searchDocument's order
    static let exactPrefix = "="

    static var tokenizerDescriptor: FTS5TokenizerDescriptor {
        .porter(wrapping: .unicode61(diacritics: .remove))
    }

    static var exactTokenizerDescriptor: FTS5TokenizerDescriptor {
        .unicode61(diacritics: .remove)
    }

    /// Rebuilds the whole index from `searchDocument`.
    static func rebuild(_ db: Database) throws {
        let tokenizer = try db.makeTokenizer(tokenizerDescriptor)
        let exactTokenizer = try db.makeTokenizer(exactTokenizerDescriptor)
        var postings: [String: [UInt8]] = [:]
        var lastDocument: [String: Int] = [:]
        var documentCounts: [String: Int] = [:]
        var lengths: [UInt8] = []
        var previousID = 0
        var documents = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT id, title, alt, transcript, explanation FROM searchDocument ORDER BY id")
        while let row = try rows.next() {
            let id: Int = row[0]
            var frequencies: [String: [Int]] = [:]
            // Exact forms, with whether each is in the title (the low bit of its posting).
            var exactForms: [String: UInt64] = [:]
            var fieldLengths = [Int](repeating: 0, count: fieldCount)
            for field in 0..<fieldCount {
                let text: String = row[field + 1]
                try forEachToken(in: text, tokenizer: tokenizer) { token in
                    frequencies[token, default: [0, 0, 0, 0]][field] += 1
                    fieldLengths[field] += 1
                }
                try forEachToken(in: text, tokenizer: exactTokenizer) { form in
                    exactForms[form] = (exactForms[form] ?? 0) | (field == 0 ? 1 : 0)
                }
            }
            for (form, inTitle) in exactForms {
                let key = exactPrefix + form
                Varint.append(UInt64(id - lastDocument[key, default: 0]) << 1 | inTitle, to: &postings[key, default: []])
                lastDocument[key] = id
                documentCounts[key, default: 0] += 1
            }
            for (term, counts) in frequencies {
                var buffer = postings[term, default: []]
                Varint.append(UInt64(id - lastDocument[term, default: 0]), to: &buffer)
                var mask: UInt8 = 0
                for field in 0..<fieldCount where counts[field] > 0 { mask |= 1 << field }
                buffer.append(mask)
                for field in 0..<fieldCount where counts[field] > 0 { Varint.append(UInt64(counts[field]), to: &buffer) }
                postings[term] = buffer
                lastDocument[term] = id
                documentCounts[term, default: 0] += 1
            }
            Varint.append(UInt64(id - previousID), to: &lengths)
            for length in fieldLengths { Varint.append(UInt64(length), to: &lengths) }
            previousID = id
            documents += 1
        }
        try db.execute(sql: "DELETE FROM rankingTerm")
        let insert = try db.makeStatement(sql: "INSERT INTO rankingTerm(term, documentCount, postings) VALUES (?, ?, ?)")
        for (term, buffer) in postings {
            try insert.execute(arguments: [term, documentCounts[term], Data(buffer)])
        }
        try db.execute(
            sql: "INSERT INTO rankingData(name, value) VALUES ('lengths', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            arguments: [Data(lengths)])
        try db.execute(sql: "DELETE FROM spellingTerm")
        let spelling = try db.makeStatement(sql: "INSERT INTO spellingTerm(term, documentCount) VALUES (?, ?)")
        for (key, count) in documentCounts where key.hasPrefix(exactPrefix) {
            let word = key.dropFirst(exactPrefix.count)
            guard word.utf8.count >= 3, word.utf8.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else { continue }
            try spelling.execute(arguments: [String(word), count])
        }
        try db.execute(
            sql: "INSERT INTO setting(key, value) VALUES ('rankingGeneration', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            arguments: [UUID().uuidString])
    }

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
        // Tokens arrive through a C callback; the context carries the Swift closure to it.
        try withoutActuallyEscaping(body) { body in
            var context = TokenSink(body: body)
            var utf8 = Array(text.utf8)
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

/// LEB128 unsigned integers, the compact encoding of the ranking blobs.
enum Varint {
    static func append(_ value: UInt64, to buffer: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            buffer.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        buffer.append(UInt8(value))
    }

    /// Reads one integer at `offset` and moves past it; nil at the end or on a damaged blob.
    static func read(_ bytes: UnsafeRawBufferPointer, at offset: inout Int) -> Int? {
        var result = 0
        var shift = 0
        while offset < bytes.count, shift < 63 {
            let byte = bytes[offset]
            offset += 1
            result |= Int(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        return nil
    }
}
