import GRDB
import Synchronization

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
    private let occurrenceWeights = Mutex<
        (generation: String, weights: RankingWeights, lookups: Int, values: [Double]?)?
    >(nil)

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
    /// a list rather than a dictionary (see ``ComicDatabase/SearchView/summaries(of:)``).
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
