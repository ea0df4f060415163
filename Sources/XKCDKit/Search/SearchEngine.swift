import FoundationEssentials
import Logging
import XKCDModel
import XKCDQuery
import XKCDStore

/// Turns user text into ranked, highlighted results: the query engine both front ends share.
///
/// Ranking, best first:
/// 1. comic N for a query that is just `N` or `#N`;
/// 2. comics holding every word (or satisfying the phrases, OR and exclusions), ordered by
///    BM25F with coverage and title signals, exact titles and title phrases first and exact
///    word forms above stemmed ones;
/// 3. when fewer than ``fallbackThreshold`` comics hold every word, comics holding only some
///    join them, ranked by the same score, which rewards how much of the query (weighted by
///    rarity) they hold;
/// 4. among the best ``proximityDepth``, a bonus for holding the query's words side by side,
///    in its order, in the title, title text or transcript: a remembered line.
public struct SearchEngine: Sendable {
    /// The marks around a matched word in a snippet: private-use characters no comic holds,
    /// which each front end turns into its own highlighting (``HighlightMark``).
    public static let highlightMarks = (open: "\u{E000}", close: "\u{E001}")
    /// Below this many comics holding every word, partial matches are added.
    public static let fallbackThreshold = 5
    /// At most this many partial matches are ranked, which bounds the work of a long query.
    public static let fallbackLimit = 100
    /// How many of the best comics by words alone are read for the query's word pairs. On 300
    /// sampled lines (MRR@10 / hit@10): 10 → 0.828 / 0.86, 20 → 0.845 / 0.90, 30 → 0.854 / 0.91,
    /// 50 → 0.865 / 0.93; each comic read costs time, so the gain past 30 was not taken.
    public static let proximityDepth = 30

    /// Longer queries are refused: no one types them, and each word costs a lookup.
    public static let maximumQueryLength = 4096

    let database: ComicDatabase
    let weights: RankingWeights
    /// The sentence model for ranking by meaning, or nil to rank by words alone.
    let sentenceModel: SentenceModel?
    /// How a comic's passages' similarities make its own (``PassageCombination``).
    public var passageCombination = PassageCombination.best
    /// A linear map of each query's sentence vector (``QueryAdapter``); none unless measured.
    public var queryAdapter: QueryAdapter?
    /// How a search of a pasted passage is ranked (``passageMinimumWords``): the measured
    /// defaults, unless a benchmark leaves out linked passages as `relevant`'s settings do.
    public var passageSettings = RelevantSettings()
    private let parser = QueryParser()
    /// Says at `info` how each search went: the query read, what ranked it and how long each
    /// step took (`-v`).
    let logger: Logger

    /// An engine over an open index.
    ///
    /// - Parameters:
    ///   - database: the index to search.
    ///   - weights: the knobs of relevance ranking; the measured defaults unless a test or
    ///     `make relevance` tries others.
    ///   - sentenceModel: the model for ranking by meaning, or nil to rank by words alone.
    ///   - logger: where to say how each search went; silent unless told.
    public init(
        database: ComicDatabase, weights: RankingWeights = RankingWeights(), sentenceModel: SentenceModel? = nil,
        logger: Logger = .silent
    ) {
        self.database = database
        self.weights = weights
        self.sentenceModel = sentenceModel
        self.logger = logger
    }

    /// Searches `text` in the query language (see ``QueryParser/syntaxHelp``).
    ///
    /// - Parameters:
    ///   - text: the query as typed.
    ///   - limit: how many comics a page holds; less than 1 counts as 1.
    ///   - page: which page, from 1; less than 1 counts as 1.
    ///   - correctingSpelling: false searches the words as typed: no correction of a word no
    ///     comic holds, no suggestion.
    /// - Returns: the page asked for, with the total and any correction, suggestion or note.
    /// - Throws: `QueryError` for malformed input, ``SearchError`` for a query too long or with
    ///   nothing to search for, ``LibraryError/emptyIndex`` when nothing is indexed, `StoreError`
    ///   when the index can't be read.
    public func search(_ text: String, limit: Int = 10, page: Int = 1, correctingSpelling: Bool = true) throws
        -> SearchResults
    {
        guard text.utf8.count <= Self.maximumQueryLength else {
            throw SearchError.queryTooLong(length: text.utf8.count, limit: Self.maximumQueryLength)
        }
        let limit = max(1, limit)
        let page = max(1, page)
        let query: SearchQuery
        do {
            query = try parser.parse(text)
        } catch {
            // A pasted passage is no query language, whatever parentheses it holds.
            if Self.isPassage(text) { return try passageResults(text, limit: limit, page: page) }
            throw error
        }
        let hasFilters =
            query.exactComic != nil || query.numberRange != nil || query.dateRange != nil
            || query.isFavourite || !query.tags.isEmpty
        guard hasFilters || query.sort != .relevance || query.text?.hasSearchableWord == true else {
            throw SearchError.nothingToSearch
        }
        if !hasFilters, query.sort == .relevance, query.text?.isPlainWords == true, Self.isPassage(text) {
            return try passageResults(text, limit: limit, page: page)
        }
        logger.info("query read as: \(query)")
        let start = ContinuousClock.now
        // One read for all the steps: each read of its own costs about as much as a lookup.
        let results = try database.reading { view in
            try search(query, text: text, limit: limit, page: page, correctingSpelling: correctingSpelling, in: view)
        }
        logger.info(
            "\(results.total) comics found, \(results.results.count) on page \(page), in \(milliseconds(since: start))")
        // Nothing found in an index with no comics (a first run offline) is said as it is.
        if results.total == 0, try database.latestComicID() == nil { throw LibraryError.emptyIndex }
        var noted = results
        if query.exactComic == 404 { noted.note = LibraryError.skipped404.description }
        return noted
    }

    private func search(
        _ query: SearchQuery, text: String, limit: Int, page: Int, correctingSpelling: Bool,
        in view: ComicDatabase.SearchView
    ) throws -> SearchResults {
        // Only the pages up to this one need to be in order; the exact comic may take one place.
        let (shown, overflow) = page.multipliedReportingOverflow(by: limit)
        let meaning = meaningText(of: query)
        // Fusion reorders the best lexical results, so those must be in order too.
        let ordered = overflow || shown == .max ? .max : max(shown + 1, meaning == nil ? 0 : Self.fusionDepth)
        var step = ContinuousClock.now
        var ranking = try rank(query, ordering: ordered, in: view)
        logger.info("ranked by words: \(ranking.ids.count) comics in \(milliseconds(since: step))")
        var corrected: String?
        var typedQueryFound = false
        var suggestion: String?
        if correctingSpelling, let textQuery = query.text {
            // A word no comic holds in the form typed is taken as a misspelling and searched
            // corrected; a rare word with a far more common neighbour only gets a suggestion.
            let (fixes, inflected) = try spellingCorrections(
                for: ranking.unseenWords, requiringMoreCommonThan: nil, in: view)
            if !fixes.isEmpty {
                var correctedQuery = query
                correctedQuery.text = textQuery.replacingTerms(fixes)
                let retry = try rank(correctedQuery, ordering: ordered, in: view)
                if !retry.ids.isEmpty || ranking.ids.isEmpty {
                    typedQueryFound = !ranking.ids.isEmpty
                    ranking = retry
                    corrected = correctedQuery.description
                    logger.info("spelling corrected to: \(correctedQuery.description)")
                }
            } else {
                // Looked up only here: a misspelt word is rare too, and its neighbours would be
                // read a second time for a hint that is not shown beside a correction.
                // A word found as another form of itself needs no hint either.
                let hints = try spellingCorrections(
                    for: ranking.rareWords.filter { !inflected.contains($0) },
                    requiringMoreCommonThan: ranking.documentCounts,
                    in: view
                ).corrections
                if !hints.isEmpty {
                    var hinted = query
                    hinted.text = textQuery.replacingTerms(hints)
                    suggestion = hinted.description
                }
            }
        }

        var semanticProblem: SemanticSearchError?
        if meaning == nil {
            logger.info("meaning: not asked (a short query, a number, filters or query syntax)")
        } else if isSettledByWords(ranking) {
            logger.info("meaning: not asked (the words settled the first result)")
        } else if let meaning {
            step = ContinuousClock.now
            do {
                try fuseMeaning(of: meaning, into: &ranking, query: query, in: view)
                logger.info(
                    "meaning: \"\(meaning)\" embedded and ranked with the words in \(milliseconds(since: step))")
            } catch let problem as SemanticSearchError {
                semanticProblem = problem
            }
        }

        let (skipped, skipsAll) = (page - 1).multipliedReportingOverflow(by: limit)
        let pageIDs = Array(ranking.ids.dropFirst(skipsAll ? ranking.ids.count : skipped).prefix(limit))
        let entries = try view.summariesAndSnippets(
            of: pageIDs, scores: ranking.scores, words: ranking.words, prefixes: ranking.prefixes,
            marks: Self.highlightMarks)
        let results = pageIDs.indices.compactMap { index -> SearchResult? in
            guard let (summary, snippet) = entries[index] else { return nil }
            let id = pageIDs[index]
            let match: SearchResult.Match =
                ranking.similar.contains(id) ? .similar : ranking.partial.contains(id) ? .someWords : .allWords
            return SearchResult(
                id: id, title: summary.title, date: summary.date,
                score: ranking.score(id), snippet: snippet, match: match)
        }
        return SearchResults(
            query: text, total: ranking.ids.count, page: page, limit: limit, corrected: corrected,
            typedQueryFound: typedQueryFound, suggestion: suggestion, results: results, semanticProblem: semanticProblem
        )
    }

    struct Ranking {
        /// Every result; only as many as the caller asked for are in ranking order.
        var ids: [Comic.ID] = []
        var scores: TermScores?
        var partial: Set<Comic.ID> = []
        /// Comics that came in on the meaning of the query alone.
        var similar: Set<Comic.ID> = []
        /// Comics whose title, title text or transcript hold at least ``SearchEngine/lineShare``
        /// of the neighbouring pairs of the query's words side by side, in order: the query is
        /// a line of theirs, maybe with a word misremembered.
        var lines: Set<Comic.ID> = []
        /// The scores of the lexical and semantic rankings combined, when the query was fused.
        var fused: FusedScores?
        /// The comics the query's filters allow, or nil without filters.
        var allowed: Set<Comic.ID>?
        /// Each comic's similarity in meaning to a passage, by number, when a passage was ranked.
        var similarities: [Float]?

        /// The score shown for `id`: the fused one when the query was fused, else the lexical.
        func score(_ id: Comic.ID) -> Double {
            let lexical = scores?.score(id) ?? 0
            return fused?.score(id, lexical: lexical) ?? lexical
        }
        var unseenWords: [String] = []
        var rareWords: [String] = []
        var documentCounts: [String: Int] = [:]
        /// What snippets highlight: these words, and every word starting with one of `prefixes`.
        var words: [String] = []
        var prefixes: [String] = []
    }

    /// The comics `query` finds by its words and filters.
    ///
    /// - Parameters:
    ///   - query: the query as parsed.
    ///   - ordered: how many of the first results must be in order.
    ///   - view: the search's read of the index.
    /// - Returns: the comics found, with what the rest of the search needs of them.
    /// - Throws: `StoreError` when the index cannot be read.
    private func rank(_ query: SearchQuery, ordering ordered: Int, in view: ComicDatabase.SearchView) throws -> Ranking
    {
        var ranking = Ranking()
        var isAllowed: (Comic.ID) -> Bool = { _ in true }
        if let typed = query.text, typed.hasSearchableWord {
            // A word with symbols that no comic writes whole is the phrase of its parts.
            let text = try typed.phrasingWords(where: view.isUnheldSymbolWord)
            let allowed = try view.comicIDs(passingFiltersOf: query)
            // A sentence's quoted speech is searched as words, with a bonus where it holds exactly.
            let quoted = query.isSentence ? text.quotedSpeech : []
            ranking = try rankText(
                quoted.isEmpty ? text : text.phrasesAsWords, quoted: quoted, allowed: allowed, ordering: ordered,
                in: view)
            if let allowed { isAllowed = allowed.contains }
            ranking.allowed = allowed
        } else if let listed = try view.comicIDs(passingFiltersOf: query, ordered: query.sort) {
            // Only filters (or words with nothing searchable in them, such as an emoji, beside
            // filters): list what the filters allow, filtered and ordered by one statement.
            ranking.ids = listed
            isAllowed = listed.contains
        } else if query.text == nil && query.sort != .relevance {
            ranking.ids = try view.comicIDs(ordered: query.sort)
        }
        if let number = query.exactComic, isAllowed(number),
            try view.summaries(of: [number])[0] != nil
        {
            ranking.ids.removeAll { $0 == number }
            ranking.ids.insert(number, at: 0)
            ranking.partial.remove(number)
        }
        if query.sort != .relevance, query.text != nil {
            try sort(&ranking.ids, by: query.sort, in: view)
        }
        return ranking
    }

    private func rankText(
        _ text: TextQuery, quoted: [[String]] = [], allowed: Set<Comic.ID>?, ordering ordered: Int,
        in view: ComicDatabase.SearchView
    ) throws -> Ranking {
        var ranking = Ranking()
        var words = text.positiveTerms
        for prefix in text.positivePrefixes {
            words += try view.commonWords(startingWith: prefix, limit: 3)
        }
        var terms = try view.termScores(for: words, weights: weights)
        if !terms.isFromCurrentIndex {
            // The ranking index lacks the comics stored since it was built (a run of the indexer
            // was killed before rebuilding it): FTS5 scores what matches, with the same field
            // weights, until the next run rebuilds it.
            let scores = try view.fullTextScores(matching: text, fieldWeights: weights.fields)
            terms.scores = [Double](repeating: 0, count: max(terms.scores.count, (scores.keys.max() ?? -1) + 1))
            for (id, score) in scores { terms.scores[id] = score }
        }
        let holdingQuote = try addQuotedSpeechBonus(quoted, to: &terms, in: view)
        ranking.unseenWords = terms.unseenWords
        ranking.documentCounts = terms.documentCounts
        ranking.rareWords = terms.documentCounts.filter { $0.value <= 3 }.map { $0.key }.sorted()
        ranking.words = words
        ranking.prefixes = text.positivePrefixes

        var strict: [Comic.ID]
        if text.isPlainWords, terms.isFromCurrentIndex {
            strict = terms.unknownWords.isEmpty ? terms.matchingAll : []
        } else {
            strict = try view.comicIDs(matching: text)
        }
        if let allowed { strict.removeAll { !allowed.contains($0) } }
        // Higher score first, then lower number: a total order, so the first results are the
        // same however many of the rest are left unsorted.
        func byScore(_ scores: [Double]) -> (Comic.ID, Comic.ID) -> Bool {
            { a, b in
                let scoreA = a < scores.count ? scores[a] : 0
                let scoreB = b < scores.count ? scores[b] : 0
                return scoreA > scoreB || (scoreA == scoreB && a < b)
            }
        }

        var partial: [Comic.ID] = []
        // Phrases, OR and field scopes say exactly what to match: only plain words fall back,
        // when at least two are known or one is known beside a word no comic holds.
        let fallsBack = terms.stems.count >= 2 || (terms.stems.count == 1 && !terms.unknownWords.isEmpty)
        if strict.count < Self.fallbackThreshold, fallsBack, text.isPlainWords(allowingExclusions: true) {
            let excluded = try text.exclusions.map { Set(try view.comicIDs(matching: .or($0))) } ?? []
            let strictIDs = Set(strict)
            partial = terms.candidates.filter { id in
                !strictIDs.contains(id) && !excluded.contains(id) && (allowed?.contains(id) ?? true)
            }
            partial.sortPrefix(Self.fallbackLimit, by: byScore(terms.scores))
            partial.removeSubrange(min(Self.fallbackLimit, partial.count)...)
        }
        // A comic holding quoted speech word for word is a result, whatever words it lacks.
        if !holdingQuote.isEmpty {
            var listed = Set(strict).union(partial)
            for id in holdingQuote where allowed?.contains(id) ?? true && listed.insert(id).inserted {
                partial.append(id)
            }
        }

        // Partial matches compete with full ones on score: a comic holding all but one word of
        // a long description (with the coverage bonus that costs it) can beat one that holds
        // every word in passing.
        var ids = strict + partial
        var boosted = terms
        // How many of the first ids the proximity bonus was computed for.
        var boostedCount = 0
        if weights.proximity > 0 {
            // The same few comics on every page, so that pages agree on the order.
            ids.sortPrefix(Self.proximityDepth, by: byScore(terms.scores))
            let top = Array(ids.prefix(Self.proximityDepth))
            let shares = try view.adjacentPairShares(of: top, words: text.positiveTerms, scores: terms)
            for (id, share) in zip(top, shares) where share > 0 && id < boosted.scores.count {
                if share >= Self.lineShare { ranking.lines.insert(id) }
                boosted.scores[id] += weights.proximity * share
            }
            boostedCount = top.count
        }
        if ordered <= boostedCount {
            // A bonus only raises the scores of those few, which already came first: the best
            // `ordered` of them are the best of all, and the thousands behind are not sorted again.
            var head = Array(ids[..<boostedCount])
            head.sortPrefix(ordered, by: byScore(boosted.scores))
            ids.replaceSubrange(..<boostedCount, with: head)
        } else {
            ids.sortPrefix(ordered, by: byScore(boosted.scores))
        }
        ranking.ids = ids
        ranking.scores = boosted
        ranking.partial = Set(partial)
        return ranking
    }

    private func sort(_ ids: inout [Comic.ID], by order: SearchSort, in view: ComicDatabase.SearchView) throws {
        switch order {
        case .relevance: break
        case .dateAscending, .dateDescending:
            let missing = ComicDate(year: 0, month: 0, day: 0)
            var dated = zip(try view.summaries(of: ids), ids).map { summary, id in
                (date: summary?.date ?? missing, id: id)
            }
            if order == .dateAscending { dated.sort { $0 < $1 } } else { dated.sort { $0 > $1 } }
            ids = dated.map(\.id)
        case .numberAscending: ids.sort()
        case .numberDescending: ids.sort(by: >)
        }
    }
}
