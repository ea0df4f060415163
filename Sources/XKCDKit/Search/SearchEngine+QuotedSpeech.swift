import XKCDModel
import XKCDStore

extension SearchEngine {
    /// Adds ``RankingWeights/quotedSpeech`` to the score of every comic holding one of `phrases`
    /// word for word, once per phrase, and returns those comics (ascending, possibly repeated).
    ///
    /// A sentence's quoted speech is searched as words (see ``SearchQuery/isSentence``): a line
    /// remembered right still brings its comic first, and one remembered wrong finds nothing
    /// exactly but leaves its words to the rest of the ranking.
    func addQuotedSpeechBonus(
        _ phrases: [[String]], to terms: inout TermScores, in view: ComicDatabase.SearchView
    ) throws -> [Comic.ID] {
        var holding: [Comic.ID] = []
        for phrase in phrases {
            let ids = try view.comicIDs(matching: .phrase(phrase, field: nil))
            for id in ids where id < terms.scores.count { terms.scores[id] += weights.quotedSpeech }
            holding += ids
        }
        return holding
    }
}

extension TextQuery {
    /// The phrases of two words or more outside exclusions: a sentence's quoted speech.
    var quotedSpeech: [[String]] {
        switch self {
        case .phrase(let words, nil): words.count >= 2 ? [words] : []
        case .and(let operands): operands.flatMap(\.quotedSpeech)
        default: []
        }
    }

    /// The query with each phrase replaced by its words, which must all match but in any order.
    var phrasesAsWords: TextQuery {
        func words(_ text: TextQuery) -> [TextQuery] {
            switch text {
            case .phrase(let words, let field): words.map { .term($0, field: field) }
            case .and(let operands): operands.flatMap(words)
            default: [text]
            }
        }
        let operands = words(self)
        return operands.count == 1 ? operands[0] : .and(operands)
    }
}
