import FoundationEssentials
import GRDB
import Glibc

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
/// tokens of unicode61 alone) are kept too, as `=word` with the comics holding them, for the
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
        try build(db).write(db)
    }

    /// What the index holds, made from the documents: reads only, so that it can be made outside
    /// the transaction that writes it (``write(_:)``).
    struct Built: Sendable {
        fileprivate var stems: TermTable
        fileprivate var exact: TermTable
        fileprivate var lengths: [UInt32]
        fileprivate var documentCount: UInt32
    }

    /// Makes the index from `searchDocument`.
    ///
    /// Terms are interned to integer ids as they are first met, so that the per-document counts
    /// and the postings live in flat arrays indexed by id rather than in string-keyed dictionaries.
    static func build(_ db: Database) throws -> Built {
        let tokenizer = try db.makeTokenizer(tokenizerDescriptor)
        let exactTokenizer = try db.makeTokenizer(exactTokenizerDescriptor)
        var stems = TermTable()
        var exact = TermTable()
        // Per stem id: its frequency in each field of the current document.
        var frequencies: [Int32] = []
        // Per exact id: bit 1 when in the current document, bit 0 when in its title.
        var exactFlags: [UInt8] = []
        var touchedStems: [Int] = []
        var touchedExact: [Int] = []
        // Per comic number and field, its length in tokens (0 for numbers with no comic).
        var lengths: [UInt32] = []
        var documentCount: UInt32 = 0
        var utf8: [UInt8] = []
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, title, alt, transcript, explanation FROM searchDocument ORDER BY id")
        while let row = try rows.next() {
            let id: Int = row[0]
            var fieldLengths = [Int](repeating: 0, count: fieldCount)
            for field in 0..<fieldCount {
                let text: String = row[field + 1]
                guard !text.isEmpty else { continue }
                utf8.removeAll(keepingCapacity: true)
                utf8.append(contentsOf: text.utf8)
                var length = 0
                func count(_ bytes: UnsafeRawBufferPointer) {
                    let term = stems.intern(bytes)
                    if term == frequencies.count / fieldCount {
                        frequencies.append(contentsOf: repeatElement(0, count: fieldCount))
                    }
                    let base = term * fieldCount
                    if frequencies[base] == 0, frequencies[base + 1] == 0, frequencies[base + 2] == 0,
                        frequencies[base + 3] == 0
                    {
                        touchedStems.append(term)
                    }
                    frequencies[base + field] += 1
                }
                try forEachTokenBytes(in: &utf8, tokenizer: tokenizer) { bytes in
                    count(bytes)
                    length += 1
                }
                fieldLengths[field] = length
                let titleBit: UInt8 = field == 0 ? 1 : 0
                try forEachTokenBytes(in: &utf8, tokenizer: exactTokenizer) { bytes in
                    let form = exact.intern(bytes)
                    if form == exactFlags.count { exactFlags.append(0) }
                    if exactFlags[form] == 0 { touchedExact.append(form) }
                    exactFlags[form] |= 2 | titleBit
                }
                // Words with symbols, whole (`c++`), beside their tokens; not counted in the
                // field's length, which the tokens already make.
                SymbolWords.forEach(inBytes: &utf8) { word in word.withUnsafeBytes(count) }
            }
            for form in touchedExact {
                exact.addPosting(form, document: id) { delta, buffer in
                    Varint.append(UInt64(delta) << 1 | UInt64(exactFlags[form] & 1), to: &buffer)
                }
                exactFlags[form] = 0
            }
            touchedExact.removeAll(keepingCapacity: true)
            for term in touchedStems {
                let base = term * fieldCount
                stems.addPosting(term, document: id) { delta, buffer in
                    Varint.append(UInt64(delta), to: &buffer)
                    var mask: UInt8 = 0
                    for field in 0..<fieldCount where frequencies[base + field] > 0 { mask |= 1 << field }
                    buffer.append(mask)
                    for field in 0..<fieldCount where frequencies[base + field] > 0 {
                        Varint.append(UInt64(frequencies[base + field]), to: &buffer)
                    }
                }
                for field in 0..<fieldCount { frequencies[base + field] = 0 }
            }
            touchedStems.removeAll(keepingCapacity: true)
            if lengths.count < id * fieldCount { lengths += repeatElement(0, count: id * fieldCount - lengths.count) }
            lengths += fieldLengths.map { UInt32(clamping: $0) }
            documentCount += 1
        }
        return Built(stems: stems, exact: exact, lengths: lengths, documentCount: documentCount)
    }
}

extension RankingIndex.Built {
    /// Replaces the stored index with this one.
    func write(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM rankingTerm")
        // Rows go in in key order: appending to the B-tree is cheaper than inserting at random.
        var rankingRows: [(key: [UInt8], table: Int, id: Int)] = []
        rankingRows.reserveCapacity(stems.count + exact.count)
        for term in 0..<stems.count { rankingRows.append((Array(stems.term(term)), 0, term)) }
        let prefix = Array(RankingIndex.exactPrefix.utf8)
        for form in 0..<exact.count { rankingRows.append((prefix + exact.term(form), 1, form)) }
        rankingRows.sort { $0.key.lexicographicallyPrecedes($1.key) }
        let insert = try db.makeStatement(
            sql: "INSERT INTO rankingTerm(term, documentCount, postings) VALUES (?, ?, ?)")
        for entry in rankingRows {
            let table = entry.table == 0 ? stems : exact
            try insert.execute(arguments: [
                String(decoding: entry.key, as: UTF8.self), table.documentCounts[entry.id],
                Data(table.postings[entry.id]),
            ])
        }
        try db.execute(
            sql:
                "INSERT INTO rankingData(name, value) VALUES ('lengths', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            arguments: [DocumentLengths.blob(lengths: lengths, documentCount: documentCount)])
        try db.execute(sql: "DELETE FROM spellingTerm")
        let spelling = try db.makeStatement(sql: "INSERT INTO spellingTerm(term, documentCount) VALUES (?, ?)")
        var spellingWords: [(word: ArraySlice<UInt8>, documentCount: Int)] = []
        for entry in rankingRows where entry.table == 1 {
            let word = entry.key.dropFirst(prefix.count)
            guard word.count >= 3, word.allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else {
                continue
            }
            try spelling.execute(arguments: [String(decoding: word, as: UTF8.self), exact.documentCounts[entry.id]])
            spellingWords.append((word, exact.documentCounts[entry.id]))
        }
        // The migrations before v7 rebuild too, before the table exists; v7 fills it.
        if try db.tableExists("spellingBucket") { try RankingIndex.writeSpellingBuckets(db, words: spellingWords) }
        try ComicDatabase.setSetting(.rankingGeneration, to: UUID().uuidString, db)
    }
}

extension RankingIndex {
    /// The spelling words grouped by their first two letters, one blob each, and again by their
    /// first and third (``SpellingBucket``): for each word its length and document count
    /// (varints), then its bytes. A misspelling reads the words sharing two letters with it, a
    /// thousand or more for common ones; stepping SQLite row by row through them was a fifth of
    /// its search, and a blob is read at once.
    static func writeSpellingBuckets(_ db: Database, words: [(word: ArraySlice<UInt8>, documentCount: Int)]) throws {
        try db.execute(sql: "DELETE FROM spellingBucket")
        var buckets: [[UInt8]: [UInt8]] = [:]
        for (word, documentCount) in words {
            var entry: [UInt8] = []
            Varint.append(UInt64(word.count), to: &entry)
            Varint.append(UInt64(documentCount), to: &entry)
            entry += word
            buckets[SpellingBucket.firstTwo(word), default: []] += entry
            if let key = SpellingBucket.firstAndThird(word) { buckets[key, default: []] += entry }
        }
        let insert = try db.makeStatement(sql: "INSERT INTO spellingBucket(prefix, words) VALUES (?, ?)")
        for (prefix, blob) in buckets.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            try insert.execute(arguments: [String(decoding: prefix, as: UTF8.self), Data(blob)])
        }
    }

    /// Terms interned to dense integer ids, with each term's postings as they are built.
    ///
    /// An open-addressing table over the terms' bytes, so that looking a token up allocates
    /// nothing: this runs for every token of the corpus, twice.
    fileprivate struct TermTable {
        /// Term id + 1 per slot, 0 when free; the count is a power of two, at most half full.
        private var slots = [Int32](repeating: 0, count: 1 << 16)
        private var hashes: [UInt64] = []
        /// The bytes of every term, end to end; term `i` spans `starts[i]..<starts[i + 1]`.
        private var bytes: [UInt8] = []
        private var starts: [Int] = [0]
        private(set) var postings: [[UInt8]] = []
        private(set) var documentCounts: [Int] = []
        private var lastDocument: [Int] = []

        var count: Int { hashes.count }

        func term(_ id: Int) -> ArraySlice<UInt8> { bytes[starts[id]..<starts[id + 1]] }

        /// The id of `token`, given a new one when first met.
        mutating func intern(_ token: UnsafeRawBufferPointer) -> Int {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
            for byte in token { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
            while true {
                let entry = Int(slots[slot])
                if entry == 0 { break }
                let id = entry - 1
                if hashes[id] == hash, matches(id, token) { return id }
                slot = (slot + 1) & mask
            }
            let id = hashes.count
            slots[slot] = Int32(id + 1)
            hashes.append(hash)
            bytes.append(contentsOf: token)
            starts.append(bytes.count)
            postings.append([])
            documentCounts.append(0)
            lastDocument.append(0)
            if hashes.count * 2 > slots.count { grow() }
            return id
        }

        private func matches(_ id: Int, _ token: UnsafeRawBufferPointer) -> Bool {
            let start = starts[id]
            let count = starts[id + 1] - start
            guard count == token.count else { return false }
            guard count > 0 else { return true }
            return bytes.withUnsafeBytes { memcmp($0.baseAddress! + start, token.baseAddress!, count) == 0 }
        }

        private mutating func grow() {
            slots = [Int32](repeating: 0, count: slots.count * 2)
            let mask = slots.count - 1
            for (id, hash) in hashes.enumerated() {
                var slot = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(id + 1)
            }
        }

        /// Appends one document to the postings of `id`; `encode` gets the gap from the previous one.
        mutating func addPosting(_ id: Int, document: Int, _ encode: (Int, inout [UInt8]) -> Void) {
            encode(document - lastDocument[id], &postings[id])
            lastDocument[id] = document
            documentCounts[id] += 1
        }
    }
}
