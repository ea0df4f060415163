import Foundation
import Logging
import XKCDModel
import XKCDStore

/// One comic that fits a passage, and why.
public struct RelevantComic: Sendable, Hashable {
    /// The comic's number.
    public var id: Comic.ID
    /// The comic's title.
    public var title: String
    /// When the comic was published.
    public var date: ComicDate
    /// How well the comic fits the passage; higher is better, comparable only within one ranking.
    public var score: Double
    /// The passage's distinctive words that the comic holds, most distinctive first; none held
    /// by half the comics or more.
    public var words: [String]
    /// The comic's text that holds the most of them, with those words between
    /// ``SearchEngine/highlightMarks``.
    public var snippet: String
    /// The sentence of the passage nearest to the comic in meaning, when the meaning ranked it.
    public var sentence: String?
    /// The cosine similarity of that sentence's (or the whole passage's) vector and the comic's.
    public var similarity: Double?
    /// Whether the passage holds every word of the comic's title, which lifted it.
    public var holdsTitle = false
    /// How many other comics' explanations link to it, which lifted it when meaning was asked.
    public var linkedFrom = 0
    /// The cosine similarity of the passage with the nearest passage someone linked this comic
    /// to (``LinkedPassage``), when that lifted it.
    public var linkedPassageSimilarity: Double?
    /// The cosine similarity of the passage with the nearest situation written for this comic
    /// (``LinkedPassage/isWritten``), when that lifted it.
    public var writtenSituationSimilarity: Double?
    /// That situation, when it lifted the comic: what the passage was found like.
    public var writtenSituation: String?

    /// ``holdsTitle``, ``linkedFrom``, ``linkedPassageSimilarity`` and
    /// ``writtenSituationSimilarity`` in words, for people: what lifted the comic besides the
    /// words and the meaning it shares with the passage.
    public var liftedBy: [String] {
        var reasons: [String] = []
        if holdsTitle { reasons.append("the passage names its title") }
        if linkedFrom > 0 { reasons.append("linked from \(linkedFrom) other explanation\(linkedFrom == 1 ? "" : "s")") }
        if linkedPassageSimilarity != nil { reasons.append("someone linked it to a passage like this one") }
        if writtenSituationSimilarity != nil {
            reasons.append(
                "a situation written for it is like this one"
                    + (writtenSituation.map { ": \u{201C}\($0)\u{201D}" } ?? ""))
        }
        return reasons
    }
}

/// The comics that fit a passage, best first.
public struct RelevantResults: Sendable {
    /// The passage as ranked: cut at a sentence boundary when it was longer than
    /// ``SearchEngine/maximumPassageLength``.
    public var passage: String
    /// The length in bytes of the passage as given, when it was cut; nil when it was not.
    public var cutFrom: Int?
    /// The passage's most distinctive words, which the comics were looked up by.
    public var words: [String]
    /// How many comics were ranked.
    public var total: Int
    /// The comics asked for, best first.
    public var results: [RelevantComic]
    /// Set when the sentence model or the index's vectors could not be used: ranked by words alone.
    public var semanticProblem: SemanticSearchError?
    /// The score of the comic ranked second, shown or not: how far the first leads does not
    /// depend on how many comics were asked for.
    public var secondScore: Double? = nil

    /// How sure the first comic is the one, in words a person reads; nil when there is no first
    /// comic or the meaning could not be asked (the words alone were never measured for it).
    public var confidence: RelevantConfidence? {
        guard semanticProblem == nil, let first = results.first, let similarity = first.similarity else { return nil }
        return RelevantConfidence(
            firstScore: first.score, lead: first.score - (secondScore ?? 0), similarity: similarity)
    }

    /// That the passage was cut, in words, when it was: "the passage has 70000 bytes, over the
    /// limit of 65536: only its first 65490, up to a sentence end, were read".
    public var cutNote: String? {
        cutFrom.map { length in
            "the passage has \(length) bytes, over the limit of \(SearchEngine.maximumPassageLength): only its first \(passage.utf8.count), up to a sentence end, were read"
        }
    }
}

/// How ``SearchEngine/relevant(to:limit:settings:)`` ranks; the defaults are what measured best
/// on the tuning half of Benchmarks/Relevance/situations.tsv (docs/ranking.md, "Passages").
public struct RelevantSettings: Sendable, Hashable {
    /// How many of the passage's words, the most distinctive by tf × idf, are looked up. On the
    /// tuning half of situations.tsv (MRR@10, at weight 0.3): 12 → 0.617, 20 → 0.628.
    public var words = 20
    /// The share of the meaning in the fused score: 0.2 → 0.597, 0.3 → 0.617, 0.45 → 0.580,
    /// 0.6 → 0.578, 0.75 → 0.533 (12 words): the passage's own words count for more than in a
    /// description of a comic (``SearchEngine/meaningWeight``).
    public var meaningWeight = 0.3
    /// What a comic whose whole title the passage holds (by stem) gains in the fused score, whose
    /// words and meaning add up to 1 at most: people name what a comic is about, and its title
    /// often names just that ("automation", "random number"). On the tuning half of
    /// situations.tsv (situations, MRR@10): none 0.583, 0.1 → 0.621, 0.2 → 0.647, 0.25 → 0.652;
    /// on the report half 0.575, 0.618, 0.640, 0.628.
    public var titleWeight = 0.2
    /// What a comic that many other comics' explanations link to gains in the fused score: the
    /// comics explain xkcd keeps coming back to are the ones people link to a situation. It is
    /// this weight × log(1 + links) / log(1 + ``linksForFullPrior``), at most the weight. On the
    /// tuning half of situations.tsv (situations, MRR@10, title weight 0.2): none 0.647, 0.1 →
    /// 0.669, 0.15 → 0.684, 0.2 → 0.660; with the full weight from 5 / 10 / 20 links at 0.15:
    /// 0.660 / 0.684 / 0.669 (docs/ranking.md).
    public var linkWeight = 0.15
    /// How many comics linking to one earn it the whole ``linkWeight``.
    public var linksForFullPrior = SearchEngine.linksForFullPrior
    /// Whether each sentence of the passage is embedded too, a comic counting its nearest: 0.627
    /// without, 0.628 with, for a model pass a sentence; off.
    public var sentences = false
    /// How many of the comics nearest in meaning join the lexical candidates.
    public var nearest = 30
    /// What a comic gains when someone linked it to a passage near this one in meaning
    /// (``LinkedPassage``, `index --linked-passages`): this weight × (cosine − ``linkedPassageThreshold``)
    /// for the nearest such passage, when above the threshold; such a comic joins the candidates.
    /// Chosen inside 5 folds by source on the 418 real passages (each fold judged with the
    /// passages of the other four only): folds chose 1.5 to 3 and 0.25 to 0.35, and held out the
    /// ranking went from 0.493 to 0.512 MRR@10 (situations 0.474 → 0.497), up on every fold. With
    /// 110 passages gathered after the choice (528 in all, by folds): 0.466 → 0.483; on those 110
    /// alone, with the first 418 linked: 0.375 → 0.370 (docs/ranking.md, "Passages people linked").
    public var linkedPassageWeight = 2.0
    /// The cosine under which a linked passage says nothing of the comic: a passage about
    /// anything is that near to most others.
    public var linkedPassageThreshold = 0.3
    /// What a comic gains when a situation written for it (``LinkedPassage/isWritten``,
    /// snapshot/written-situations.tsv) is near this passage in meaning: this weight × (cosine −
    /// ``writtenSituationThreshold``) for the nearest, when above the threshold, added to what a
    /// linked passage gives; such a comic joins the candidates too. (docs/ranking.md,
    /// "Situations written for every comic".)
    public var writtenSituationWeight = 2.0
    /// The cosine under which a written situation says nothing of the comic.
    public var writtenSituationThreshold = 0.3
    /// How many comics, the nearest, may join the candidates by a written situation alone: a
    /// passage is above the threshold for some 56 comics' situations (the median over the real
    /// passages), and each one joining costs a little and adds to the count of comics ranked.
    public var writtenSituationCandidates = 30
    /// Linked passages written at these addresses are left out: a benchmark judging passages
    /// by folds leaves out the passages of the fold it judges.
    public var excludedLinkedSources: Set<String> = []
    /// Pseudo-relevance feedback: how many of the first comics move the passage's vector
    /// towards theirs (0: none), and by how much. 3 took 0.628 to 0.620 at 20 words and weight 0.3,
    /// 0.580 to 0.609 at 12 words and weight 0.45: no gain once the words and weight were chosen; off.
    public var feedback = 0
    /// How far the feedback moves the passage's vector: the first comics' mean vector is added
    /// at this weight.
    public var feedbackWeight = 0.5

    /// The settings that measured best; change a field to try another.
    public init() {}
}

extension SearchEngine {
    /// Longer passages are cut at the last sentence boundary before this many bytes.
    public static let maximumPassageLength = 64 * 1024
    /// At most this many of a passage's sentences are embedded one by one: each costs a pass of
    /// the model.
    static let maximumSentences = 8

    /// A search query of this many words or more is a passage someone pasted: it is ranked as
    /// `relevant` ranks, so the two answer alike. Measured on the first N words of the 212 real
    /// passages of 30 words or more (docs/ranking.md), `relevant` beats the search ranking at
    /// every length (MRR@10 at 16 words 0.242 against 0.206, 20: 0.278 / 0.272, 24: 0.318 /
    /// 0.300); from 20 words the known-item sets lose nothing (dev.tsv 1.000, heldout.tsv 1.000,
    /// descriptions.tsv 0.975, as at 25), from 15 they do (0.990, 1.000, 0.969).
    static let passageMinimumWords = 20

    static func isPassage(_ text: String) -> Bool {
        text.split(whereSeparator: \.isWhitespace).count >= passageMinimumWords
    }

    /// A page of search results for a passage, ranked as ``relevant(to:limit:settings:)`` ranks.
    func passageResults(_ text: String, limit: Int, page: Int) throws -> SearchResults {
        logger.info("ranked as a passage: \(Self.passageMinimumWords) words or more")
        let (shown, overflow) = page.multipliedReportingOverflow(by: limit)
        let found = try relevant(to: text, limit: overflow ? 100_000 : min(shown, 100_000), settings: passageSettings)
        let (skipped, skipsAll) = (page - 1).multipliedReportingOverflow(by: limit)
        let results = found.results.dropFirst(skipsAll ? found.results.count : skipped).map { comic in
            SearchResult(
                id: comic.id, title: comic.title, date: comic.date, score: comic.score, snippet: comic.snippet,
                match: comic.words.isEmpty ? .similar : .someWords)
        }
        if found.total == 0, try database.latestComicID() == nil { throw LibraryError.emptyIndex }
        return SearchResults(
            query: text, total: found.total, page: page, limit: limit, results: results,
            semanticProblem: found.semanticProblem)
    }

    /// `text` cut at the last sentence end (or line end, or space) before `limit` bytes, or as it
    /// is when it is not longer; and whether it was cut.
    ///
    /// - Parameters:
    ///   - text: the passage as given.
    ///   - limit: the most bytes of UTF-8 to keep.
    /// - Returns: the passage to read, without white space around it when cut, and whether it
    ///   was cut.
    public static func passage(_ text: String, limit: Int = maximumPassageLength) -> (passage: String, wasCut: Bool) {
        guard text.utf8.count > limit else { return (text, false) }
        // Whole characters only.
        var end = text.startIndex
        var bytes = 0
        for index in text.indices {
            let next = text.index(after: index)
            bytes += text.utf8.distance(from: index, to: next)
            guard bytes <= limit else { break }
            end = next
        }
        let head = text[..<end]
        for boundary in [".!?\n", "\n", " \t"] {
            if let last = head.lastIndex(where: { boundary.contains($0) }), last > head.startIndex {
                return (String(head[...last]).trimmingCharacters(in: .whitespacesAndNewlines), true)
            }
        }
        return (String(head), true)
    }

    /// Ranks the comics by how well they fit `text`, a passage someone wrote (a situation, a
    /// paragraph of a discussion): by its most distinctive words, any of which a comic may hold
    /// ("more like this"), fused with the meaning of the passage and of each of its sentences.
    ///
    /// - Parameters:
    ///   - text: the passage; past ``maximumPassageLength`` only its head is read.
    ///   - limit: how many comics to give; less than 1 counts as 1.
    ///   - settings: how to rank; the measured defaults unless a benchmark tries others.
    /// - Returns: at most `limit` comics, best first, with why each fits.
    /// - Throws: ``SearchError/passageHasNoWords`` when the passage has no word any comic holds and
    ///   no meaning can be asked, `StoreError` when the index can't be read.
    public func relevant(to text: String, limit: Int = 10, settings: RelevantSettings = RelevantSettings()) throws
        -> RelevantResults
    {
        let (passage, wasCut) = Self.passage(text)
        let counts = PassageWords(passage)
        guard !counts.words.isEmpty else { throw SearchError.passageHasNoWords }
        let limit = max(1, limit)
        return try database.reading { view in
            // How rare each word is, read without scoring them all ("the" is in every comic).
            let (documentCounts, documentCount) = try view.documentCounts(of: counts.words)
            let total = Double(max(documentCount, 1))
            func idf(_ word: String) -> Double {
                let count = Double(documentCounts[word] ?? 0)
                return log(1 + (total - count + 0.5) / (count + 0.5))
            }
            var weighted: [(word: String, weight: Double)] = []
            for word in counts.words where documentCounts[word, default: 0] > 0 {
                weighted.append((word, Double(counts.frequency[word, default: 1]) * idf(word)))
            }
            weighted.sort { a, b in a.weight > b.weight || (a.weight == b.weight && a.word < b.word) }
            let distinctive: [String] = weighted.prefix(settings.words).map { $0.word }

            var ranking = Ranking()
            if !distinctive.isEmpty {
                let terms = try view.termScores(for: distinctive, weights: weights)
                var ids = terms.candidates
                ids.sortPrefix(max(Self.fusionDepth, limit)) { a, b in
                    terms.scores[a] > terms.scores[b] || (terms.scores[a] == terms.scores[b] && a < b)
                }
                ranking.ids = ids
                ranking.scores = terms
                ranking.words = distinctive
            }

            var semanticProblem: SemanticSearchError?
            // How many explanations link to each comic, as far as read.
            var linkedFrom: [Comic.ID: Int] = [:]
            var sentences: [String] = []
            var nearestSentence: [Int] = []
            // Each comic linked to a passage near this one, or written up for a situation near
            // it, and the nearest one's cosine of each kind: what it gains, and its reasons.
            var nearLinkedPassages = NearLinkedPassages()
            do {
                sentences = [passage] + (settings.sentences ? Self.sentences(of: passage) : [])
                let embedded = try embeddings(of: sentences)
                var vectors = embedded.vectors
                let model = embedded.model
                let lexical = ranking
                var (best, nearest) = try nearestInMeaning(to: vectors, model: model, in: view)
                nearLinkedPassages = try self.nearLinkedPassages(
                    to: vectors[0], model: model, settings: settings, in: view)
                let linkedComics = nearLinkedPassages.joining(writtenAtMost: settings.writtenSituationCandidates)
                // The link counts read for the fused candidates are the reasons' too.
                func priors(_ ids: [Comic.ID]) throws -> [Comic.ID: Double] {
                    let counts = try view.linkingCounts(to: ids)
                    for id in ids { linkedFrom[id] = counts[id, default: 0] }
                    return Self.linkPrior(
                        counts: counts, weight: settings.linkWeight, fullAt: settings.linksForFullPrior
                    ).merging(nearLinkedPassages.bonuses(settings), uniquingKeysWith: +)
                }
                try fuse(
                    best, into: &ranking, excluding: [], weight: settings.meaningWeight, nearestCount: settings.nearest,
                    titleBonus: settings.titleWeight, joining: linkedComics, prior: priors)
                if settings.feedback > 0 {
                    // Pseudo-relevance feedback: the passage's vector moved towards those of the
                    // comics ranked first, as one more text to be near.
                    var moved = vectors[0]
                    let top = ranking.ids.prefix(settings.feedback)
                    for id in top {
                        guard let vector = try view.vectors(of: id, model: model).first, vector.count == moved.count
                        else { continue }
                        for index in moved.indices {
                            moved[index] += Float(settings.feedbackWeight) * vector[index] / Float(top.count)
                        }
                    }
                    let norm = moved.reduce(0) { $0 + $1 * $1 }.squareRoot()
                    if norm > 0 {
                        vectors.append(moved.map { $0 / norm })
                        sentences.append(passage)
                        (best, nearest) = try nearestInMeaning(to: vectors, model: model, in: view)
                        ranking = lexical
                        try fuse(
                            best, into: &ranking, excluding: [], weight: settings.meaningWeight,
                            nearestCount: settings.nearest, titleBonus: settings.titleWeight, joining: linkedComics,
                            prior: priors)
                    }
                }
                ranking.similarities = best
                nearestSentence = nearest
            } catch let problem as SemanticSearchError {
                semanticProblem = problem
            }
            guard !ranking.ids.isEmpty || semanticProblem == nil else { throw SearchError.passageHasNoWords }

            let pageIDs = Array(ranking.ids.prefix(limit))
            let entries = try view.summariesAndSnippets(
                of: pageIDs, scores: ranking.scores, words: distinctive, marks: Self.highlightMarks)
            // Words in half the comics or more ("the", "that") rank little and explain nothing.
            let telling = distinctive.filter { documentCounts[$0, default: 0] * 2 < documentCount }
            let common = Set(distinctive).subtracting(telling)
            let held = try view.words(telling, heldBy: pageIDs)
            // Read here only for comics the fusion did not read (ranked by words alone).
            let unread = pageIDs.filter { linkedFrom[$0] == nil }
            linkedFrom.merge(try view.linkingCounts(to: unread)) { read, _ in read }
            // The situations that lifted the shown comics, quoted in their reasons.
            let situations = try view.linkedPassageTexts(pageIDs.compactMap { nearLinkedPassages.nearestWritten[$0] })
            let results = pageIDs.indices.compactMap { index -> RelevantComic? in
                guard let (summary, snippet) = entries[index] else { return nil }
                let id = pageIDs[index]
                let similarity = ranking.similarities.flatMap { id < $0.count ? Double($0[id]) : nil }
                // The whole passage is no reason to show; one of its sentences is.
                let sentence =
                    id < nearestSentence.count && sentences[nearestSentence[id]] != passage
                    ? sentences[nearestSentence[id]] : nil
                return RelevantComic(
                    id: id, title: summary.title, date: summary.date, score: ranking.score(id), words: held[id] ?? [],
                    snippet: Self.unmarking(common, in: snippet), sentence: sentence, similarity: similarity,
                    holdsTitle: ranking.scores?.holdsWholeTitle(of: id) == true, linkedFrom: linkedFrom[id] ?? 0,
                    linkedPassageSimilarity: nearLinkedPassages.linked[id],
                    writtenSituationSimilarity: nearLinkedPassages.written[id],
                    writtenSituation: nearLinkedPassages.nearestWritten[id].flatMap { situations[$0] })
            }
            return RelevantResults(
                passage: passage, cutFrom: wasCut ? text.utf8.count : nil, words: distinctive, total: ranking.ids.count,
                results: results,
                semanticProblem: semanticProblem, secondScore: ranking.ids.dropFirst().first.map(ranking.score))
        }
    }

    /// The comics linked to a passage, or written up for a situation, nearer `vector` in meaning
    /// than the threshold of its kind (``RelevantSettings/linkedPassageThreshold``,
    /// ``RelevantSettings/writtenSituationThreshold``), with the cosine of the nearest; none of a
    /// kind whose weight is 0.
    func nearLinkedPassages(
        to vector: [Float], model: String, settings: RelevantSettings, in view: ComicDatabase.SearchView
    ) throws -> NearLinkedPassages {
        guard settings.linkedPassageWeight > 0 || settings.writtenSituationWeight > 0 else {
            return NearLinkedPassages()
        }
        let nearest = try view.linkedPassageSimilarities(
            to: vector, model: model, excludingSources: settings.excludedLinkedSources)
        func above(_ threshold: Double, weight: Double, _ similarities: [Comic.ID: Float]) -> [Comic.ID: Double] {
            guard weight > 0 else { return [:] }
            return similarities.compactMapValues { Double($0) > threshold ? Double($0) : nil }
        }
        let written = above(
            settings.writtenSituationThreshold, weight: settings.writtenSituationWeight, nearest.written)
        return NearLinkedPassages(
            linked: above(settings.linkedPassageThreshold, weight: settings.linkedPassageWeight, nearest.linked),
            written: written, nearestWritten: nearest.nearestWritten.filter { written[$0.key] != nil })
    }

    /// The sentences of `passage` (ends of sentences and lines), each of three words or more,
    /// at most ``maximumSentences``; none when the passage is one sentence.
    static func sentences(of passage: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        for character in passage {
            current.append(character)
            if character.isNewline || (".!?".contains(character)) {
                sentences.append(current)
                current = ""
            }
        }
        sentences.append(current)
        let kept = sentences.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { $0.split(whereSeparator: \.isWhitespace).count >= 3 }
        return kept.count > 1 ? Array(kept.prefix(maximumSentences)) : []
    }
}

/// The comics near a passage by the passages linked to them and the situations written for
/// them: the cosine of the nearest of each kind, above its threshold.
struct NearLinkedPassages {
    /// Each comic's nearest passage someone linked it to: its cosine, when above the threshold.
    var linked: [Comic.ID: Double] = [:]
    /// Each comic's nearest situation written for it: its cosine, when above the threshold.
    var written: [Comic.ID: Double] = [:]
    /// The row of each comic's nearest written situation, for those in ``written``.
    var nearestWritten: [Comic.ID: Int64] = [:]

    /// The comics that join the candidates: every one near by a linked passage, and the
    /// `writtenAtMost` nearest by a written situation; in order of number.
    func joining(writtenAtMost limit: Int) -> [Comic.ID] {
        let written = written.sorted { a, b in a.value > b.value || (a.value == b.value && a.key < b.key) }
        return Set(linked.keys).union(written.prefix(max(0, limit)).map(\.key)).sorted()
    }

    /// What each comic gains in the fused score: each kind's weight × (cosine − its threshold).
    func bonuses(_ settings: RelevantSettings) -> [Comic.ID: Double] {
        linked.mapValues { settings.linkedPassageWeight * ($0 - settings.linkedPassageThreshold) }.merging(
            written.mapValues { settings.writtenSituationWeight * ($0 - settings.writtenSituationThreshold) },
            uniquingKeysWith: +)
    }
}

extension SearchEngine {
    /// `snippet` with the marks taken off the words in `common`: a short passage's every word is
    /// looked up, "a" and "your" too, but those say nothing of why the comic fits, and the
    /// reasons leave them out as well.
    static func unmarking(_ common: Set<String>, in snippet: String) -> String {
        guard !common.isEmpty else { return snippet }
        let (open, close) = highlightMarks
        var pieces = snippet.components(separatedBy: open)
        for index in pieces.indices.dropFirst() {
            // Each piece after the first began with an open mark: its marked word, then the rest.
            guard let end = pieces[index].range(of: close) else {
                pieces[index] = open + pieces[index]
                continue
            }
            let word = pieces[index][..<end.lowerBound]
            pieces[index] =
                common.contains(word.lowercased())
                ? String(word) + pieces[index][end.upperBound...] : open + pieces[index]
        }
        return pieces.joined()
    }
}

/// The words of a passage, lowercased, with how often each occurs, in order of first use.
struct PassageWords {
    var words: [String] = []
    var frequency: [String: Int] = [:]

    /// The marks that join the parts of one word: `don't`, `e-mail`, `node.js`, `i/o`, `AT&T`,
    /// `c++`, `c#`, `snake_case`, `user@host`, `10:30`. Any other mark between letters (a
    /// bracket, a quote, `<`, `>`, `=`, `*`, `|`: markup and code pasted with a passage)
    /// separates words, so `<b>sanitize</b>` is the words `b`, `sanitize`, `b`.
    static let joiners: Set<Character> = ["'", "\u{2019}", "-", ".", "/", "&", "+", "#", "_", "@", ":"]

    init(_ passage: String) {
        let pieces = passage.split { character in
            character.isWhitespace
                || !(character.isLetter || character.isNumber || Self.joiners.contains(character))
        }
        for piece in pieces {
            let word: String
            if let symbolWord = SymbolWords.whole(String(piece)) {
                word = symbolWord
            } else {
                // Punctuation around a word is no part of it; inside it (`don't`, `e-mail`) the
                // index's tokenizer splits it as it splits the comics' text.
                let trimmed = piece.drop { !$0.isLetter && !$0.isNumber }.reversed().drop {
                    !$0.isLetter && !$0.isNumber
                }
                word = String(trimmed.reversed()).lowercased()
            }
            guard !word.isEmpty, word.count <= 64 else { continue }
            if frequency[word] == nil { words.append(word) }
            frequency[word, default: 0] += 1
        }
    }
}
