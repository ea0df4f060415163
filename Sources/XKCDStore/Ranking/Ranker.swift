import Foundation
import GRDB
import Synchronization
import XKCDModel

/// The knobs of relevance ranking, chosen by measurement on the development set
/// (`make relevance`), not by guessing.
public struct RankingWeights: Sendable, Hashable {
    /// BM25F weight of a term occurrence in title, alt, transcript and explanation.
    public var fields: [Double] = [6, 3, 1.5, 1]
    /// BM25F length normalisation per field (0: none, 1: full).
    public var lengthNormalization: [Double] = [0.5, 0.5, 0.75, 0.75]
    public var k1 = 1.2
    /// Bonus for the share (by idf) of query words a comic holds anywhere. Measured on the
    /// development set (MRR@10, 50 queries): 0 → 0.970, 5 → 0.977, 10 → 0.963, 20 → 0.957
    /// with the title bonus at 5; field weights from 3,2,1,1 to 10,5,2,1 all within 0.003.
    public var coverage = 5.0
    /// Bonus for the share (by idf) of query words in the title.
    public var titleCoverage = 5.0
    /// Bonus for a title made of exactly the query's words: it ranks first.
    public var exactTitle = 100.0
    /// Bonus for holding the query's words in the form typed, not only their stem.
    public var exactForm = 1.0
    /// Bonus for holding all of the query's neighbouring word pairs side by side in the title,
    /// title text or transcript (a share of it for some). MRR@10 on the development set / on
    /// 47 known-item queries written apart from it (`Benchmarks/Relevance/heldout.tsv`) / on
    /// 300 lines sampled from the comics (`Relevance --sample-quotes 300`):
    /// 0 → 0.977 / 0.933 / 0.671, 1 → 0.977 / 0.936 / 0.785, 2 → 0.980 / 0.947 / 0.834,
    /// 3 → 0.980 / 0.949 / 0.854, 4 → 0.970 / 0.950 / 0.868, 8 → 0.970 / 0.951 / 0.885.
    /// Above 3 the descriptions of the development set lose more than the lines gain.
    public var proximity = 3.0
    /// Bonus for holding, word for word, a phrase quoted in a sentence (quoted speech, which is
    /// searched as words: see `SearchQuery.isSentence`), once per phrase.
    public var quotedSpeech = 10.0

    public init() {}
}

/// BM25F scores of every comic holding at least one of the query's words.
public struct TermScores: Sendable {
    /// The distinct stems that the index holds, in query order.
    public var stems: [String]
    /// Query words none of whose stems the index holds.
    public var unknownWords: [String]
    /// Query words that no comic holds in exactly this form (perhaps misspelt, even when
    /// their stem is known: "dependancy" stems like "dependency").
    public var unseenWords: [String]
    /// For each query word, how many comics hold its rarest stem (0 when unknown).
    public var documentCounts: [String: Int]
    /// Score by comic id (dense; 0 for comics holding none of the stems). This array,
    /// ``matchedStems`` and ``fieldMatches`` are empty when no comic holds any of them, so
    /// look comics up within their counts.
    public var scores: [Double]
    /// How many of `stems` each comic holds, by comic id.
    /// Sixteen bits: a query of the longest allowed holds more than 255 stems.
    public var matchedStems: [UInt16]
    /// How many of `stems` each field holds: `fieldMatches[id * 4 + field]`, fields in the
    /// order title, alt, transcript, explanation.
    public var fieldMatches: [UInt8]
    /// Ids of the comics holding at least one stem, ascending.
    public var candidates: [Comic.ID]
    /// How many comics the index holds.
    public var documentCount: Int
    /// False when documents changed after the ranking index was last built (an indexer run was
    /// interrupted or killed): its postings lack those comics, so what matches must be asked of
    /// FTS5 (``ComicDatabase/rankingIndexIsCurrent()``).
    public var isFromCurrentIndex: Bool

    /// Comics holding every stem.
    public var matchingAll: [Comic.ID] {
        candidates.filter { Int(matchedStems[$0]) == stems.count }
    }

    public func score(_ id: Comic.ID) -> Double {
        id < scores.count ? scores[id] : 0
    }
}

/// Field lengths of every comic, loaded once per ranking generation and shared by queries.
struct DocumentLengths: Sendable {
    /// Set anew by each rebuild of the ranking index, and anew with ``stalePrefix`` each time
    /// documents change before the next (``ComicDatabase/rankingIndexIsCurrent()``).
    var generation: String
    /// `lengths[id * 4 + field]`.
    var lengths: [Float]
    var averages: [Double]
    var documentCount: Int
    /// Whether the ranking index holds the documents as they are.
    var isCurrent: Bool { !generation.hasPrefix(Self.stalePrefix) }
    static let stalePrefix = "stale-"

    /// The stored generation, read on every search to know whether cached lengths still hold.
    static func generation(_ db: Database) throws -> String {
        var generation = ""
        try db.cachedStatement(sql: "SELECT value FROM setting WHERE key = 'rankingGeneration'")
            .forEachRow { row in generation = row.text(0) }
        return generation
    }
    /// The highest comic number `lengths` has room for.
    var maxID: Int { lengths.count / RankingIndex.fieldCount - 1 }

    /// The stored form: ``format``, the number of comics, then each length
    /// (`lengths[id * 4 + field]`), 32-bit little-endian. Every search process loads it, and
    /// decoding a varint per length was a tenth of one; this is read in one pass.
    static func blob(lengths: [UInt32], documentCount: UInt32) -> Data {
        var data = Data(capacity: 4 * (lengths.count + 2))
        for value in [format, documentCount] + lengths { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// The first word of the stored form ("XKL1"): the varints an older version wrote under the
    /// same name, or damaged data, are told apart from it.
    static let format: UInt32 = 0x314C_4B58

    static let damaged = StoreError.failed(
        reason: "its ranking data is damaged or was written by another version; run 'xkcd-search index --rebuild', or delete the index and run 'xkcd-search index'")

    static func load(_ db: Database, generation: String) throws -> DocumentLengths {
        var loaded: DocumentLengths?
        try db.cachedStatement(sql: "SELECT value FROM rankingData WHERE name = 'lengths'").forEachRow { row in
            loaded = try decode(row.bytes(0), generation: generation)
        }
        return try loaded ?? decode(UnsafeRawBufferPointer(start: nil, count: 0), generation: generation)
    }

    private static func decode(_ blob: UnsafeRawBufferPointer, generation: String) throws -> DocumentLengths {
        let fieldCount = RankingIndex.fieldCount
        // Four fields, read four at a time below.
        assert(fieldCount == 4)
        var totals = [Double](repeating: 0, count: fieldCount)
        // An index with no comics yet has no lengths.
        guard !blob.isEmpty else {
            return DocumentLengths(
                generation: generation, lengths: [Float](repeating: 0, count: fieldCount),
                averages: [Double](repeating: 1, count: fieldCount), documentCount: 0)
        }
        guard blob.count >= 8, (blob.count - 8) % (4 * fieldCount) == 0,
            UInt32(littleEndian: blob.loadUnaligned(as: UInt32.self)) == format
        else { throw damaged }
        let valueCount = (blob.count - 8) / 4
        let documentCount = Int(UInt32(littleEndian: blob.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        var lengths = [Float](unsafeUninitializedCapacity: valueCount) { lengths, count in
            // Comic by comic, each field's total summed in number order as before, the four
            // fields of a comic side by side in one vector.
            var fieldTotals = SIMD4<Double>()
            for base in stride(from: 0, to: valueCount, by: 4) {
                let stored = blob.loadUnaligned(fromByteOffset: 4 * (base + 2), as: SIMD4<UInt32>.self)
                #if _endian(big)
                let counts = SIMD4(stored[0].byteSwapped, stored[1].byteSwapped, stored[2].byteSwapped, stored[3].byteSwapped)
                #else
                let counts = stored
                #endif
                // As signed: a field is never 2^31 tokens long, and signed integers convert to
                // floating point in one instruction.
                let comic = SIMD4<Int32>(truncatingIfNeeded: counts)
                UnsafeMutableRawPointer(lengths.baseAddress! + base).storeBytes(of: SIMD4<Float>(comic), as: SIMD4<Float>.self)
                fieldTotals += SIMD4<Double>(comic)
            }
            totals = [fieldTotals[0], fieldTotals[1], fieldTotals[2], fieldTotals[3]]
            count = valueCount
        }
        if lengths.isEmpty { lengths = [Float](repeating: 0, count: fieldCount) }
        let count = max(documentCount, 1)
        return DocumentLengths(
            generation: generation, lengths: lengths, averages: totals.map { max($0 / Double(count), 1) },
            documentCount: documentCount)
    }
}

extension DocumentLengths {
    /// The BM25F weight of one occurrence in a field of `length` tokens, which no query changes.
    /// One expression for the cached weights and the ones computed as met, so that both agree
    /// to the bit.
    @inline(__always)
    static func occurrenceWeight(fieldWeight: Double, b: Double, length: Float, average: Double) -> Double {
        fieldWeight / (1 - b + b * Double(length) / average)
    }

    /// Per comic and field (`[id * 4 + field]`), ``occurrenceWeight(fieldWeight:b:length:average:)``.
    func occurrenceWeights(_ weights: RankingWeights) -> [Double] {
        let fieldCount = RankingIndex.fieldCount
        return lengths.indices.map { index in
            let field = index % fieldCount
            return Self.occurrenceWeight(
                fieldWeight: weights.fields[field], b: weights.lengthNormalization[field], length: lengths[index],
                average: averages[field])
        }
    }
}

/// A connection's tokenizers for query words: stems as the index stems them, and exact forms.
///
/// Unchecked: a tokenizer keeps state between calls (the porter stemmer's buffer), so it is
/// used only on the connection it was made for (``RankingCache/tokenizers(_:)``), which GRDB
/// uses from one thread at a time. GRDB documents a tokenizer as valid only while its
/// connection is open; the cache drops one once its connection is gone. FTS5's built-in
/// tokenizers (porter, unicode61) keep nothing of the connection once made, only function
/// pointers and their own memory, so releasing one after its connection closed is safe.
final class QueryTokenizers: @unchecked Sendable {
    let stems: any FTS5Tokenizer
    let exactForms: any FTS5Tokenizer
    /// The connection they were made for; nil once it is gone.
    private(set) weak var database: Database?

    init(_ db: Database) throws {
        stems = try db.makeTokenizer(RankingIndex.tokenizerDescriptor)
        exactForms = try db.makeTokenizer(RankingIndex.exactTokenizerDescriptor)
        database = db
    }
}

/// Keeps the last loaded ``DocumentLengths`` so a session (the REPL, a benchmark) loads them once.
final class RankingCache: Sendable {
    private let lengths = Mutex<DocumentLengths?>(nil)
    private let occurrenceWeights = Mutex<(generation: String, weights: RankingWeights, lookups: Int, values: [Double]?)?>(nil)

    /// ``DocumentLengths/occurrenceWeights(_:)``, computed once per generation and weights, from
    /// the third lookup on: a process that searches once (the CLI; a corrected typo looks up
    /// twice) would compute 13,000 of them to use a few hundred, and until then each lookup
    /// computes those it meets.
    func occurrenceWeights(_ lengths: DocumentLengths, weights: RankingWeights) -> [Double]? {
        var cached = occurrenceWeights.withLock { $0 }
        if cached?.generation != lengths.generation || cached?.weights != weights {
            cached = (lengths.generation, weights, 0, nil)
        }
        guard var cached else { return nil }
        // The generation keys the weights to their lengths; the count checks it.
        if let values = cached.values, values.count == lengths.lengths.count { return values }
        cached.lookups += 1
        if cached.lookups >= 3 { cached.values = lengths.occurrenceWeights(weights) }
        occurrenceWeights.withLock { [cached] in $0 = cached }
        return cached.values
    }

    /// The query tokenizers of each connection, made once: GRDB's `makeTokenizer` prepares a
    /// statement to find FTS5 and creates the tokenizer on each call, a twentieth of a one-word
    /// search. Found by the identity of the connection's `Database`, held weakly, so that a
    /// closed connection's tokenizers are never handed to another. A handful of connections, so
    /// a list rather than a dictionary (see ``ComicDatabase/Snapshot/summaries(of:)``).
    private let tokenizers = Mutex<[QueryTokenizers]>([])

    func tokenizers(_ db: Database) throws -> QueryTokenizers {
        if let cached = tokenizers.withLock({ $0.first { $0.database === db } }) { return cached }
        let made = try QueryTokenizers(db)
        tokenizers.withLock { list in
            list.removeAll { $0.database == nil }
            list.append(made)
        }
        return made
    }

    func documentLengths(_ db: Database) throws -> DocumentLengths {
        let generation = try DocumentLengths.generation(db)
        if let cached = lengths.withLock({ $0 }), cached.generation == generation { return cached }
        let loaded = try DocumentLengths.load(db, generation: generation)
        lengths.withLock { $0 = loaded }
        return loaded
    }
}

extension ComicDatabase {
    /// BM25F scores of `words` (see ``Snapshot/termScores(for:weights:)``).
    public func termScores(for words: [String], weights: RankingWeights = RankingWeights()) throws(StoreError) -> TermScores {
        try snapshot { snapshot throws(StoreError) in try snapshot.termScores(for: words, weights: weights) }
    }

    /// Rebuilds the ranking statistics from the stored documents.
    ///
    /// Made from a snapshot of the documents, then written in a transaction of its own: the
    /// write lock, which favourites wait for, is held for the writing, not for reading and
    /// tokenizing every document. Documents stored in between
    /// (only the indexer stores them) change the generation, and the index is then made again
    /// inside the transaction.
    public func rebuildRankingIndex() throws(StoreError) {
        let (built, generation) = try read { db in (try RankingIndex.build(db), try DocumentLengths.generation(db)) }
        try write { db in
            if try DocumentLengths.generation(db) == generation {
                try built.write(db)
            } else {
                try RankingIndex.rebuild(db)
            }
        }
    }

    /// False when documents have changed since the ranking index was last built: a run of the
    /// indexer stopped before its end. Searches then ask FTS5 what matches, and the next run of
    /// the indexer rebuilds it.
    public func rankingIndexIsCurrent() throws(StoreError) -> Bool {
        try read { db in try !DocumentLengths.generation(db).hasPrefix(DocumentLengths.stalePrefix) }
    }
}

extension ComicDatabase.Snapshot {
    /// Scores every comic holding any of `words` with BM25F plus coverage and title signals.
    ///
    /// Reads one postings blob per distinct stem, and one per word whose exact form differs
    /// from its stem:
    /// ```sql
    /// SELECT documentCount, postings FROM rankingTerm WHERE term = ?
    /// ```
    public func termScores(for words: [String], weights: RankingWeights = RankingWeights()) throws(StoreError) -> TermScores {
        try wrapped {
            let lengths = try rankingCache.documentLengths(db)
            let tokenizers = try rankingCache.tokenizers(db)
            let exactTokenizer = tokenizers.exactForms
            let lookup = try postingsLookup()
            var query = QueryTerms()
            for word in words {
                // A word with symbols that some comic holds is looked up whole (``SymbolWords``);
                // one that none holds (or an index made before they were kept) by its parts.
                let wordStems = try rankingStems(of: word)
                var forms: [String] = []
                if wordStems.count != 1 || SymbolWords.whole(word) != wordStems[0] {
                    try RankingIndex.forEachToken(in: word, tokenizer: exactTokenizer) { forms.append($0) }
                }
                guard !wordStems.isEmpty else { continue }
                query.tokenCount += wordStems.count
                var rarest: Int?
                for stem in wordStems {
                    if let index = query.stems.firstIndex(of: stem) {
                        rarest = min(rarest ?? .max, query.blobs[index].documentCount)
                        continue
                    }
                    guard let (documentCount, postings) = try Self.postings(of: stem, lookup: lookup) else { continue }
                    query.stems.append(stem)
                    query.blobs.append((documentCount, postings))
                    rarest = min(rarest ?? .max, documentCount)
                }
                query.documentCounts[word] = rarest ?? 0
                if rarest == nil { query.unknownWords.append(word) }
                for form in forms where !query.checkedForms.contains(form) {
                    query.checkedForms.insert(form)
                    guard let (_, postings) = try Self.postings(of: RankingIndex.exactPrefix + form, lookup: lookup) else {
                        if !query.unseenWords.contains(word) { query.unseenWords.append(word) }
                        continue
                    }
                    query.exactForms.append((postings, isStemmed: !wordStems.contains(form)))
                }
            }
            let occurrenceWeights = rankingCache.occurrenceWeights(lengths, weights: weights)
            return score(query, lengths: lengths, occurrenceWeights: occurrenceWeights, weights: weights)
        }
    }

    /// How many comics hold each of `words` (the rarest of its stems; 0 for none), without
    /// scoring: a passage's words are weighed by this before the few most distinctive are scored.
    ///
    /// ```sql
    /// SELECT documentCount FROM rankingTerm WHERE term = ?
    /// ```
    public func documentCounts(of words: [String]) throws(StoreError) -> (counts: [String: Int], documentCount: Int) {
        try wrapped {
            let lengths = try rankingCache.documentLengths(db)
            let lookup = try db.cachedStatement(sql: "SELECT documentCount FROM rankingTerm WHERE term = ?")
            var counts: [String: Int] = [:]
            for word in words where counts[word] == nil {
                var rarest: Int?
                for stem in try rankingStems(of: word) {
                    try lookup.forEachRow(binding: [.text(stem)]) { row in rarest = min(rarest ?? .max, row.integer(0)) }
                }
                counts[word] = rarest ?? 0
            }
            return (counts, lengths.documentCount)
        }
    }

    /// Whether `word` is a word with symbols (``SymbolWords``) that no comic holds whole: the
    /// search engine then searches it as the phrase of its parts (`i/o` as "i o").
    public func isUnheldSymbolWord(_ word: String) throws(StoreError) -> Bool {
        guard let symbolWord = SymbolWords.whole(word) else { return false }
        return try wrapped { try Self.postings(of: symbolWord, lookup: try postingsLookup()) == nil }
    }

    /// Which of `words` each comic of `ids` holds, in the order of `words`: what a passage's
    /// results show as their reasons.
    public func words(_ words: [String], heldBy ids: [Comic.ID]) throws(StoreError) -> [Comic.ID: [String]] {
        try wrapped {
            let wanted = Set(ids)
            let lookup = try postingsLookup()
            var held: [Comic.ID: [String]] = [:]
            for word in words {
                var holders: Set<Comic.ID> = []
                for stem in try rankingStems(of: word) {
                    guard let (_, postings) = try Self.postings(of: stem, lookup: lookup) else { continue }
                    postings.withUnsafeBytes { bytes in
                        var reader = PostingsReader(bytes)
                        while let (id, mask) = reader.next() {
                            for _ in 0..<mask.nonzeroBitCount { _ = reader.frequency() }
                            if wanted.contains(id) { holders.insert(id) }
                        }
                    }
                }
                for id in holders { held[id, default: []].append(word) }
            }
            return held
        }
    }

    /// The terms the ranking index holds `word` under: the word whole when it is a word with
    /// symbols some comic holds (``SymbolWords``), else its stems.
    private func rankingStems(of word: String) throws -> [String] {
        if let symbolWord = SymbolWords.whole(word), try Self.postings(of: symbolWord, lookup: try postingsLookup()) != nil {
            return [symbolWord]
        }
        var stems: [String] = []
        try RankingIndex.forEachToken(in: word, tokenizer: try rankingCache.tokenizers(db).stems) { stems.append($0) }
        return stems
    }

    /// The statement that reads one term's row of the ranking index (its exact forms are
    /// `"=" + form`), for ``postings(of:lookup:)`` and readers in place.
    func postingsLookup() throws -> Statement {
        try db.cachedStatement(sql: "SELECT documentCount, postings FROM rankingTerm WHERE term = ?")
    }

    /// How many comics hold `term`, and its postings, or nil when no comic does.
    static func postings(of term: String, lookup: Statement) throws -> (documentCount: Int, postings: Data)? {
        var found: (Int, Data)?
        try lookup.forEachRow(binding: [.text(term)]) { row in found = (row.integer(0), Data(row.bytes(1))) }
        return found
    }

    private struct QueryTerms {
        var stems: [String] = []
        var blobs: [(documentCount: Int, postings: Data)] = []
        /// Postings of each exact form; only forms that stemming changes earn the exact-form boost.
        var exactForms: [(postings: Data, isStemmed: Bool)] = []
        var checkedForms: Set<String> = []
        var unknownWords: [String] = []
        var unseenWords: [String] = []
        var documentCounts: [String: Int] = [:]
        var tokenCount = 0
    }

    private func score(
        _ query: QueryTerms, lengths: DocumentLengths, occurrenceWeights cachedWeights: [Double]?, weights: RankingWeights
    ) -> TermScores {
        // A query of words no comic holds (a misspelling, before its correction is searched)
        // has nothing to add up, and the totals below are a hundred kilobytes to clear.
        let size = query.blobs.isEmpty ? 0 : lengths.maxID + 1
        let fieldCount = RankingIndex.fieldCount
        var scores = [Double](repeating: 0, count: size)
        var matched = [UInt16](repeating: 0, count: size)
        var titleMatched = [UInt8](repeating: 0, count: size)
        var fieldMatches = [UInt8](repeating: 0, count: size * fieldCount)
        var titleShare = [Double](repeating: 0, count: size)
        var coverageShare = [Double](repeating: 0, count: size)
        let n = Double(max(lengths.documentCount, 1))
        let idfs = query.blobs.map { log(1 + (n - Double($0.documentCount) + 0.5) / (Double($0.documentCount) + 0.5)) }
        let idfTotal = max(idfs.reduce(0, +), 1e-9)
        // Raw buffers: this loop runs once per posting, thousands of times for a common word,
        // and array accesses would check bounds and uniqueness each time.
        scores.withUnsafeMutableBufferPointer { scores in
        matched.withUnsafeMutableBufferPointer { matched in
        titleMatched.withUnsafeMutableBufferPointer { titleMatched in
        fieldMatches.withUnsafeMutableBufferPointer { fieldMatches in
        titleShare.withUnsafeMutableBufferPointer { titleShare in
        coverageShare.withUnsafeMutableBufferPointer { coverageShare in
        let totals = PostingTotals(
            scores: scores, matched: matched, titleMatched: titleMatched, fieldMatches: fieldMatches,
            titleShare: titleShare, coverageShare: coverageShare)
        lengths.lengths.withUnsafeBufferPointer { documentLengths in
            let computed = ComputedOccurrenceWeights(
                fieldWeights: weights.fields, b: weights.lengthNormalization, averages: lengths.averages,
                lengths: documentLengths)
            for (index, blob) in query.blobs.enumerated() {
                let idf = idfs[index]
                let share = idf / idfTotal
                blob.postings.withUnsafeBytes { bytes in
                    // One loop per source of weights, so that the choice is not made per field.
                    if let cachedWeights {
                        cachedWeights.withUnsafeBufferPointer { values in
                            totals.add(bytes, idf: idf, share: share, k1: weights.k1, weights: CachedOccurrenceWeights(values: values))
                        }
                    } else {
                        totals.add(bytes, idf: idf, share: share, k1: weights.k1, weights: computed)
                    }
                }
            }
        }
        }
        }
        }
        }
        }
        }
        let stemmedForms = query.exactForms.filter { $0.isStemmed }.count
        let exactShare = stemmedForms == 0 ? 0 : weights.exactForm / Double(stemmedForms)
        var titleForms = [UInt8](repeating: 0, count: size)
        var candidates: [Comic.ID] = []
        // Through buffers, as above: a write to an array in a loop checks its uniqueness each
        // time, and a common word's candidates are thousands.
        scores.withUnsafeMutableBufferPointer { scores in
        titleForms.withUnsafeMutableBufferPointer { titleForms in
        matched.withUnsafeBufferPointer { matched in
            for form in query.exactForms {
                form.postings.withUnsafeBytes { bytes in
                    var offset = 0
                    var id = 0
                    while let entry = Varint.read(bytes, at: &offset) {
                        id &+= entry >> 1  // wrapping: a damaged blob must not trap
                        guard id >= 0, id < size, matched[id] > 0 else { continue }
                        if form.isStemmed { scores[id] += exactShare }
                        if entry & 1 != 0 { titleForms[id] &+= 1 }
                    }
                }
            }
            // In number order by a pass over the counts, not a sort: see `Array.sortPrefix` in
            // XKCDKit for what the standard library's sort costs a one-search process. Without a
            // branch per comic (whether one is a candidate is as good as random, and mispredicting
            // it cost more than the rest of the pass), so with room for every comic: a slot past
            // `count` is written and left, which an `Int` allows.
            candidates = [Comic.ID](unsafeUninitializedCapacity: size) { buffer, count in
                for id in 0..<size {
                    buffer[count] = id
                    count &+= matched[id] > 0 ? 1 : 0
                }
            }
            titleMatched.withUnsafeBufferPointer { titleMatched in
            titleShare.withUnsafeBufferPointer { titleShare in
            coverageShare.withUnsafeBufferPointer { coverageShare in
            lengths.lengths.withUnsafeBufferPointer { documentLengths in
                for id in candidates {
                    scores[id] += weights.coverage * coverageShare[id] + weights.titleCoverage * titleShare[id]
                    // The title is the query, word for word ("is it worth the time"); in the very
                    // forms typed it beats a title that only stems alike ("Dependencies").
                    if Int(titleMatched[id]) == query.stems.count, Int(documentLengths[id * fieldCount]) == query.tokenCount {
                        let isExactForm = Int(titleForms[id]) == query.exactForms.count
                        scores[id] += isExactForm ? weights.exactTitle : weights.exactTitle / 2
                    }
                }
            }
            }
            }
            }
        }
        }
        }
        return TermScores(
            stems: query.stems, unknownWords: query.unknownWords, unseenWords: query.unseenWords,
            documentCounts: query.documentCounts, scores: scores, matchedStems: matched, fieldMatches: fieldMatches, candidates: candidates,
            documentCount: lengths.documentCount, isFromCurrentIndex: lengths.isCurrent)
    }
}

/// Where ``PostingTotals/add(_:idf:share:k1:weights:)`` finds the BM25F weight of one occurrence.
private protocol OccurrenceWeightSource {
    /// The weight of an occurrence in `field` of the comic whose field is `index` (`id * 4 + field`).
    func weight(at index: Int, field: Int) -> Double
}

/// Weights computed once per generation (``RankingCache/occurrenceWeights(_:weights:)``).
private struct CachedOccurrenceWeights: OccurrenceWeightSource {
    let values: UnsafeBufferPointer<Double>

    @inline(__always)
    func weight(at index: Int, field: Int) -> Double { values[index] }
}

/// Weights computed as met, by the same expression as the cached ones.
private struct ComputedOccurrenceWeights: OccurrenceWeightSource {
    let fieldWeights: [Double], b: [Double], averages: [Double]
    let lengths: UnsafeBufferPointer<Float>

    @inline(__always)
    func weight(at index: Int, field: Int) -> Double {
        DocumentLengths.occurrenceWeight(
            fieldWeight: fieldWeights[field], b: b[field], length: lengths[index], average: averages[field])
    }
}

/// The per-comic totals a query's postings are added into, by comic id.
private struct PostingTotals {
    let scores: UnsafeMutableBufferPointer<Double>
    let matched: UnsafeMutableBufferPointer<UInt16>
    let titleMatched: UnsafeMutableBufferPointer<UInt8>
    /// `[id * 4 + field]`.
    let fieldMatches: UnsafeMutableBufferPointer<UInt8>
    let titleShare: UnsafeMutableBufferPointer<Double>
    let coverageShare: UnsafeMutableBufferPointer<Double>

    /// Adds one stem's postings: its BM25F term score, its share of the query's idf, and the
    /// fields holding it. Comics past the totals' end are read past and left out.
    @inline(__always)
    func add(_ postings: UnsafeRawBufferPointer, idf: Double, share: Double, k1: Double, weights: some OccurrenceWeightSource) {
        let size = scores.count
        var reader = PostingsReader(postings)
        while let (id, mask) = reader.next() {
            let isCounted = id < size
            var weighted = 0.0
            // The mask's fields in order, as their frequencies follow it.
            var fields = UInt32(mask) & ((1 << RankingIndex.fieldCount) - 1)
            while fields != 0 {
                let field = fields.trailingZeroBitCount
                fields &= fields &- 1
                guard let frequency = reader.frequency() else { return }
                guard isCounted else { continue }
                let index = id &* RankingIndex.fieldCount &+ field
                fieldMatches[index] &+= 1
                // (weight / norm) × frequency, where the norm was once divided per posting: a
                // score may differ in its last bit; the 230-query mix of the Search benchmark
                // ranks and scores the same.
                weighted += weights.weight(at: index, field: field) * Double(frequency)
            }
            guard isCounted else { continue }
            matched[id] &+= 1
            scores[id] += idf * weighted / (k1 + weighted)
            coverageShare[id] += share
            if mask & 1 != 0 {
                titleShare[id] += share
                titleMatched[id] &+= 1
            }
        }
    }
}
