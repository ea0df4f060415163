import GRDB

/// The keys under which `spellingBucket` groups the index's words for typo correction.
///
/// A misspelling is looked up among the words that share two letters with it, not among every
/// word: typos in the first letters are rare. Each word is kept twice, under its first two
/// letters (`wo` for "workflow") and under its first and third (`w_r`), so that each of these
/// typos finds it by one read:
/// - a later letter wrong, dropped or added (`workflwo`): the typed first two, `wo`;
/// - the second letter doubled, swapped or added (`woorkflow`, `wrokflow`): the typed first and
///   third, `wo`;
/// - the second letter dropped (`wrkflow`): the typed first two as a word's first and third,
///   `w_r`.
///
/// The keys are bytes of the words' UTF-8; the two kinds differ in length, so they never meet.
enum SpellingBucket {
    /// The key of the words starting with these two bytes.
    static func firstTwo<Word: Collection<UInt8>>(_ word: Word) -> [UInt8] {
        Array(word.prefix(2))
    }

    /// The key of the words whose first and third bytes are these, or nil for a word of fewer
    /// than three.
    static func firstAndThird<Word: Collection<UInt8>>(_ word: Word) -> [UInt8]? {
        let bytes = Array(word.prefix(3))
        guard bytes.count == 3 else { return nil }
        return [bytes[0], UInt8(ascii: "_"), bytes[2]]
    }

    /// The key of the words whose first and third bytes are `first` and `third`.
    static func firstAndThird(first: UInt8, third: UInt8) -> [UInt8] {
        [first, UInt8(ascii: "_"), third]
    }
}

extension RankingIndex {
    /// Groups the spelling words again from `spellingTerm`, for an index whose blobs were made
    /// before a change of ``SpellingBucket``'s keys: no need to rebuild the whole ranking index.
    static func regroupSpellingWords(_ db: Database) throws {
        var words: [(word: ArraySlice<UInt8>, documentCount: Int)] = []
        try db.makeStatement(sql: "SELECT term, documentCount FROM spellingTerm").forEachRow { row in
            words.append((ArraySlice(row.text(0).utf8), row.integer(1)))
        }
        try writeSpellingBuckets(db, words: words)
    }
}
