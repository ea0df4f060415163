import GRDB
import XKCDModel

extension ComicDatabase.SearchView {
    /// Words of the index spelled like `word`, with the number of comics holding each: those
    /// starting with its first two letters, or with its first and third (its second letter
    /// doubled, swapped or added), or whose first and third are its first two (its second letter
    /// dropped), of a length within `slack`.
    ///
    /// Typos in the first two letters are rare; reading only the words of these letters keeps a
    /// lookup to a few thousand words instead of every word with the same first letter. The
    /// words of each key are one blob (``SpellingBucket``, ``RankingIndex/writeSpellingBuckets(_:words:)``):
    /// ```sql
    /// SELECT words FROM spellingBucket WHERE prefix = ?
    /// ```
    ///
    /// - Parameters:
    ///   - word: the word as typed, perhaps misspelled; one of fewer than three letters has no
    ///     candidates.
    ///   - slack: how many letters longer or shorter than `word` a candidate may be.
    ///   - minimumCount: only words held by at least this many comics.
    ///   - isNear: whether a word, as UTF-8 bytes, is near enough: a misspelling reads a thousand
    ///     words and keeps a few, and making each a String first was a tenth of its search.
    /// - Returns: each candidate with the number of comics holding it, in no particular order.
    /// - Throws: a ``StoreError`` when the index cannot be read.
    package func spellingCandidates(
        near word: String, slack: Int = 2, minimumCount: Int = 1,
        where isNear: (UnsafeRawBufferPointer) -> Bool = { _ in true }
    ) throws(StoreError) -> [(term: String, documentCount: Int)] {
        let letters = Array(word.lowercased().utf8)
        guard letters.count >= 3 else { return [] }
        let keys = [
            // Words starting as typed: a later letter wrong, dropped or added.
            SpellingBucket.firstTwo(letters),
            // Words starting with the typed first and third: the second doubled, swapped or added.
            SpellingBucket.firstTwo([letters[0], letters[2]]),
            // Words whose first and third are the typed first two: the second dropped.
            SpellingBucket.firstAndThird(first: letters[0], third: letters[1]),
        ]
        let length = letters.count
        return try wrapped {
            let bucket = try db.cachedStatement(sql: "SELECT words FROM spellingBucket WHERE prefix = ?")
            var candidates: [(term: String, documentCount: Int)] = []
            // A word whose second and third letters are alike ("look") is under two of the keys.
            var found: Set<String> = []
            for key in Set(keys) {
                try bucket.forEachRow(binding: [.text(String(decoding: key, as: UTF8.self))]) { row in
                    let words = row.bytes(0)
                    var offset = 0
                    while let wordLength = Varint.read(words, at: &offset),
                        let documentCount = Varint.read(words, at: &offset),
                        wordLength <= words.count - offset
                    {
                        let word = UnsafeRawBufferPointer(rebasing: words[offset..<offset + wordLength])
                        offset += wordLength
                        guard abs(wordLength - length) <= slack, documentCount >= minimumCount, isNear(word) else {
                            continue
                        }
                        let term = String(decoding: word, as: UTF8.self)
                        if found.insert(term).inserted { candidates.append((term, documentCount)) }
                    }
                }
            }
            return candidates
        }
    }

    /// The most frequent indexed words starting with `prefix`, to rank `prefix*` queries.
    public func commonWords(startingWith prefix: String, limit: Int) throws(StoreError) -> [String] {
        let start = prefix.lowercased()
        guard let last = start.last, let next = Character.successor(of: last) else { return [] }
        let end = String(start.dropLast()) + String(next)
        return try wrapped {
            var words: [String] = []
            try db.cachedStatement(
                sql: """
                    SELECT term FROM spellingTerm WHERE term >= ? AND term < ? ORDER BY documentCount DESC LIMIT ?
                    """
            ).forEachRow(binding: [.text(start), .text(end), .integer(limit)]) { row in words.append(row.text(0)) }
            return words
        }
    }
}

extension Character {
    fileprivate static func successor(of character: Character) -> Character? {
        guard let scalar = character.unicodeScalars.first, let next = Unicode.Scalar(scalar.value + 1) else {
            return nil
        }
        return Character(next)
    }
}
