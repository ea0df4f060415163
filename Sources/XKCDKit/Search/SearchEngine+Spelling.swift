import FoundationEssentials
import Logging
import XKCDModel
import XKCDQuery
import XKCDStore

extension SearchEngine {
    /// Whether two words are forms of one word by English inflectional endings: `waggles` and
    /// `waggle`, `sandwiches` and `sandwiched`.
    static func isInflection(of a: String, and b: String) -> Bool {
        func forms(_ word: String) -> Set<String> {
            var forms: Set<String> = [word]
            // "class" is no plural of "clas"; a "d" ends only a word in "ed" ("waggled"), or
            // "standard" and a misspelt "standars" would be forms of one "standar".
            for ending in ["s", "es", "d", "ed", "ing", "er", "ers", "ly"]
            where word.hasSuffix(ending) && word.count > ending.count + 2 && !word.hasSuffix("s" + ending)
                && (ending != "d" || word.hasSuffix("ed"))
            {
                forms.insert(String(word.dropLast(ending.count)))
            }
            return forms
        }
        return !forms(a).isDisjoint(with: forms(b))
    }

    /// For each word, the indexed word nearest in spelling, preferring title words, then
    /// common words; apart, the words whose nearest is only another form of them.
    ///
    /// - Parameters:
    ///   - words: the words to correct, as typed.
    ///   - counts: when given, a correction must be held by at least ten times as many comics as
    ///     the word itself (a rare word is not corrected to another rare word).
    ///   - view: the search's read of the index.
    /// - Returns: the corrections by word, and the words found as another form of themselves.
    /// - Throws: `StoreError` when the index cannot be read.
    func spellingCorrections(
        for words: [String], requiringMoreCommonThan counts: [String: Int]?, in view: ComicDatabase.SearchView
    ) throws -> (corrections: [String: String], inflections: Set<String>) {
        var corrections: [String: String] = [:]
        var inflections: Set<String> = []
        for word in words {
            let typed = word.lowercased()
            guard typed.count >= 3, typed.allSatisfy({ $0.isASCII && $0.isLetter }) else { continue }
            // Two edits only from seven letters: a shorter real word (a name, another
            // language's "segura") is two edits from some English one ("secure").
            let allowed = typed.count <= 6 ? 1 : 2
            let minimumCount = counts.map { max(($0[word] ?? 0) * 10, 5) } ?? 1
            let typedWord = EditDistance.TypedWord(Array(typed.utf8))
            var nearest: [(term: String, distance: Int, count: Int)] = []
            let candidates = try view.spellingCandidates(near: typed, slack: allowed, minimumCount: minimumCount) {
                bytes in
                // Distance 0 is the typed word itself.
                (1...allowed).contains(typedWord.distance(to: bytes, limit: allowed))
            }
            for (term, count) in candidates {
                let distance = typedWord.distance(to: term, limit: allowed)
                if let first = nearest.first, distance > first.distance { continue }
                if let first = nearest.first, distance < first.distance { nearest.removeAll() }
                nearest.append((term, distance, count))
            }
            // Among the nearest, a word some title holds wins, then the commoner word: people
            // look comics up by their titles ("purety" is "Purity" rather than "purely").
            let titled = nearest.count > 1 ? try view.titleWords(among: nearest.map(\.term)) : []
            let best = nearest.min { a, b in
                (titled.contains(a.term) ? 0 : 1, -a.count, a.term) < (
                    titled.contains(b.term) ? 0 : 1, -b.count, b.term
                )
            }
            // A word that differs from the nearest only by an ending ("waggles", "waggle") is
            // found by its stem already: correcting it would only print a notice.
            guard let best else { continue }
            if Self.isInflection(of: typed, and: best.term) {
                inflections.insert(word)
            } else {
                corrections[word] = best.term
            }
        }
        return (corrections, inflections)
    }
}

extension SearchEngine {
    /// The shortest word read from an image that is corrected: a misread long word
    /// ("INFRASTUCTURE") has one indexed word near it, a short one ("cot", "yee", mostly noise
    /// from drawings) has many, and correcting it would make noise into words some comic holds.
    static let shortestCorrectedReadWord = 6

    /// `words` as read from an image, each of ``shortestCorrectedReadWord`` letters or more that
    /// no comic holds in any form replaced by the indexed word nearest in spelling (one edit up
    /// to six letters, two from seven), as `search` corrects a typo.
    ///
    /// - Parameter words: the words read, lower-cased.
    /// - Returns: the words, misread ones corrected where a near word exists.
    /// - Throws: `StoreError` when the index cannot be read.
    func correctingMisreadWords(_ words: [String]) throws -> [String] {
        let long = words.filter { $0.count >= Self.shortestCorrectedReadWord }
        guard !long.isEmpty else { return words }
        return try database.reading { view in
            // Counted, not scored: only whether any comic holds the word matters here.
            let counts = try view.documentCounts(of: Array(Set(long)).sorted()).counts
            let unknown = counts.filter { $0.value == 0 }.map(\.key).sorted()
            guard !unknown.isEmpty else { return words }
            let fixes = try spellingCorrections(for: unknown, requiringMoreCommonThan: nil, in: view).corrections
            return words.map { fixes[$0] ?? $0 }
        }
    }
}
