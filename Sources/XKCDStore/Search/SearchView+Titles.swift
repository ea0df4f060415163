import FoundationEssentials
import GRDB

extension ComicDatabase.SearchView {
    /// Which of `words` (exact forms, lower case) some comic's title holds.
    ///
    /// Reads each word's exact-form postings, whose entries carry a title bit:
    /// ```sql
    /// SELECT documentCount, postings FROM rankingTerm WHERE term = '=' || ?
    /// ```
    public func titleWords(among words: [String]) throws(StoreError) -> Set<String> {
        try wrapped {
            let lookup = try postingsLookup()
            var found: Set<String> = []
            for word in words {
                guard let (_, postings) = try Self.postings(of: RankingIndex.exactPrefix + word, lookup: lookup) else {
                    continue
                }
                let inTitle = postings.withUnsafeBytes { bytes in
                    var offset = 0
                    while let entry = Varint.read(bytes, at: &offset) {
                        if entry & 1 != 0 { return true }
                    }
                    return false
                }
                if inTitle { found.insert(word) }
            }
            return found
        }
    }
}
