import FoundationEssentials
import GRDB
import XKCDModel

extension ComicDatabase.SearchView {
    /// Scores every comic holding any of `words` with BM25F plus coverage and title signals.
    ///
    /// Reads one postings blob per distinct stem, and one per word whose exact form differs
    /// from its stem:
    /// ```sql
    /// SELECT documentCount, postings FROM rankingTerm WHERE term = ?
    /// ```
    package func termScores(for words: [String], weights: RankingWeights = RankingWeights()) throws(StoreError)
        -> TermScores
    {
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
                    guard let (_, postings) = try Self.postings(of: RankingIndex.exactPrefix + form, lookup: lookup)
                    else {
                        if !query.unseenWords.contains(word) { query.unseenWords.append(word) }
                        continue
                    }
                    query.exactForms.append((postings, isStemmed: !wordStems.contains(form)))
                }
            }
            let occurrenceWeights = rankingCache.occurrenceWeights(lengths, weights: weights)
            return query.score(lengths: lengths, occurrenceWeights: occurrenceWeights, weights: weights)
        }
    }

    /// How many comics hold each of `words` (the rarest of its stems; 0 for none), without
    /// scoring: a passage's words are weighed by this before the few most distinctive are scored.
    ///
    /// ```sql
    /// SELECT documentCount FROM rankingTerm WHERE term = ?
    /// ```
    package func documentCounts(of words: [String]) throws(StoreError) -> (counts: [String: Int], documentCount: Int) {
        try wrapped {
            let lengths = try rankingCache.documentLengths(db)
            let lookup = try db.cachedStatement(sql: "SELECT documentCount FROM rankingTerm WHERE term = ?")
            var counts: [String: Int] = [:]
            for word in words where counts[word] == nil {
                var rarest: Int?
                for stem in try rankingStems(of: word) {
                    try lookup.forEachRow(binding: [.text(stem)]) { row in rarest = min(rarest ?? .max, row.integer(0))
                    }
                }
                counts[word] = rarest ?? 0
            }
            return (counts, lengths.documentCount)
        }
    }

    /// Whether `word` is a word with symbols (``SymbolWords``) that no comic holds whole: the
    /// search engine then searches it as the phrase of its parts (`i/o` as "i o").
    package func isUnheldSymbolWord(_ word: String) throws(StoreError) -> Bool {
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
        if let symbolWord = SymbolWords.whole(word),
            try Self.postings(of: symbolWord, lookup: try postingsLookup()) != nil
        {
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
}
