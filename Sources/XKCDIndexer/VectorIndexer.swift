import FoundationEssentials
import Glibc
import Logging
import XKCDEmbed
import XKCDFiles
import XKCDModel
import XKCDStore

/// What a vector run did.
public struct VectorReport: Sendable, Equatable {
    /// Comics embedded by the model in this run.
    public var embedded: Int
    /// Comics whose vectors were taken from a file of precomputed vectors.
    public var imported: Int
    /// Comics whose vectors were already current.
    public var current: Int
    /// Rows of the file of precomputed vectors that were meant for this model but are no vector
    /// of it (a wrong type or length, not of unit length, a passage given twice): left out.
    public var refusedRows = 0
    /// Why the file of precomputed vectors was not read at all (nil when it was, or none was given).
    public var unusableFile: String?
    /// Comics the model made no usable vector of (NaN, from damaged weights): not stored.
    public var failed = 0
    /// Comics whose text was read and tokenized to compare it with their vectors' (none when
    /// the run was told no text changed and every comic had a vector of this model).
    public var textsRead = 0
    /// Passages people linked comics to (``LinkedPassage``) embedded in this run.
    public var linkedPassagesEmbedded = 0
    /// Situations written for the comics (``LinkedPassage/isWritten``) embedded in this run.
    public var writtenSituationsEmbedded = 0
    /// True when the run was cancelled before embedding every comic; what it embedded is kept.
    public var isInterrupted = false
}

/// Keeps each comic's sentence vector in step with its text and with the model, so that search
/// can rank by meaning.
///
/// A comic is embedded again only when the model or the text the model reads changed: each
/// vector is stored with the model's identity and a digest of the tokens it was made from.
/// Vectors are written in batches, each its own transaction, so a killed run keeps what it had
/// embedded and the next one goes on from there.
///
/// ```swift
/// let report = try await VectorIndexer(database: database, encoder: encoder)
///     .run(importingFrom: "snapshot/vectors.sqlite")
/// ```
public struct VectorIndexer: Sendable {
    let database: ComicDatabase
    let encoder: SentenceEncoder
    let width: Int
    let batchSize: Int
    let explanationPassages: Int

    /// - Parameters:
    ///   - database: the index whose comics are read and whose vectors are written.
    ///   - encoder: the sentence model that embeds the comics; its identity is stored with each
    ///     vector.
    ///   - width: how many comics are embedded at once (one per core: the model's matrix
    ///     products run on the calling thread).
    ///   - batchSize: how many comics are embedded between two writes, each batch its own
    ///     transaction: what a killed run loses at most.
    ///   - explanationPassages: how many passages of the explanation get a vector of their own
    ///     besides the comic's head (``passages(of:explanationPassages:)``).
    public init(
        database: ComicDatabase, encoder: SentenceEncoder, width: Int = ProcessInfo.processInfo.activeProcessorCount,
        batchSize: Int = 32, explanationPassages: Int = 0
    ) {
        self.database = database
        self.encoder = encoder
        self.width = max(1, width)
        self.batchSize = max(1, batchSize)
        self.explanationPassages = max(0, explanationPassages)
    }

    /// The text of a comic that the model reads: its title, title text, transcript and
    /// explanation, of which the model keeps the first 256 tokens.
    ///
    /// One passage per comic. Fused with the lexical ranking, it measured better than the same
    /// without the transcript (MRR@10 on descriptions.tsv 0.913 against 0.899; dev.tsv 1.000
    /// against 0.990), and as well as passages over the whole explanation, which cost four times
    /// the vectors and the time (docs/semantic-search.md).
    ///
    /// With `explanationPassages` above 0, the explanation's first passages of about
    /// ``passageWords`` words follow, cut at paragraph ends where a paragraph fits, each after the
    /// comic's title: the model reads only the start of the head, and a situation often fits
    /// what the explanation says further on.
    public static func passages(of document: ComicDocument, explanationPassages: Int = 0) -> [String] {
        let head = "\(document.title). \(document.alt)\n\(document.transcript)\n\(document.explanation)"
        guard explanationPassages > 0 else { return [head] }
        var passages: [[Substring]] = []
        var current: [Substring] = []
        for paragraph in document.explanation.split(whereSeparator: \.isNewline) {
            var words = paragraph.split(whereSeparator: \.isWhitespace)[...]
            if !current.isEmpty, current.count + words.count > passageWords {
                passages.append(current)
                current = []
            }
            // A paragraph longer than a passage is cut into passages of its own.
            while words.count > passageWords {
                passages.append(Array(words.prefix(passageWords)))
                words = words.dropFirst(passageWords)
            }
            current += words
            if passages.count >= explanationPassages { break }
        }
        if !current.isEmpty { passages.append(current) }
        return [head] + passages.prefix(explanationPassages).map { "\(document.title). " + $0.joined(separator: " ") }
    }

    /// The length in words of a passage of the explanation: about 210 tokens of the model's 256.
    public static let passageWords = 160

    /// Embeds every comic whose vectors are missing or stale, until done or cancelled.
    ///
    /// - Parameters:
    ///   - shipped: a file of precomputed vectors
    ///     (``ComicDatabase/forEachVector(inFile:model:dimensions:_:)``); a vector in it is used
    ///     when it was made by this model from the same tokens. A file that cannot be read is
    ///     reported in ``VectorReport/unusableFile`` and its comics embedded.
    ///   - textUnchanged: the caller stored no comic text since the last run (an index run
    ///     that fetched nothing): when every comic has a vector of this model, no text is read.
    ///     Reading and tokenizing every comic's text to find that out was most of a no-op run.
    ///   - progress: called after each comic with how many of those to embed are done.
    /// - Returns: how many comics were embedded, imported from `shipped` or already current,
    ///   what could not be used, and whether the run was cancelled before the end.
    /// - Throws: a `StoreError` when the index cannot be read or the vectors cannot be written;
    ///   vectors stored by earlier batches are kept. Cancelling is no error: the report says so.
    public func run(
        importingFrom shipped: String? = nil, textUnchanged: Bool = false,
        progress: @escaping @Sendable (IndexProgress) -> Void = { _ in }
    ) async throws -> VectorReport {
        let sources = try database.vectorSources()
        let ids = try database.comicIDs()
        if textUnchanged {
            let model = (identity: encoder.identity, dimensions: encoder.dimensions)
            if ids.allSatisfy({ sources[$0].map { ($0.model, $0.dimensions) == model } ?? false }) {
                return VectorReport(embedded: 0, imported: 0, current: ids.count)
            }
        }
        // Each comic's tokens are kept rather than its text (an explanation may run to
        // megabytes, of which the model reads 256 tokens), and text is read a few hundred comics
        // at a time.
        var pending: [(id: Comic.ID, tokens: [[Int32]], digest: String)] = []
        var current = 0
        var textsRead = 0
        for start in stride(from: 0, to: ids.count, by: 256) {
            for document in try database.documents(ids: Array(ids[start..<min(start + 256, ids.count)])) {
                let tokens = Self.passages(of: document, explanationPassages: explanationPassages).map(
                    encoder.tokenIDs(for:))
                textsRead += 1
                let digest = Self.digest(of: tokens)
                let source = VectorSource(model: encoder.identity, textDigest: digest, dimensions: encoder.dimensions)
                if sources[document.id] == source {
                    current += 1
                } else {
                    pending.append((document.id, tokens, digest))
                }
            }
        }

        var report = VectorReport(embedded: 0, imported: 0, current: current, textsRead: textsRead)
        if let shipped, !pending.isEmpty {
            let usable = importable(from: shipped, for: pending, into: &report)
            try database.replaceVectors(usable)
            let done = Set(usable.map(\.id))
            report.imported = done.count
            pending.removeAll { done.contains($0.id) }
        }

        var state = IndexProgress(completed: 0, total: pending.count, failed: 0)
        progress(state)
        // For tests only: a first-class wait point between the vectors taken from the file
        // (stored) and the first progress (drawn on a terminal) on one side, and the comics to
        // embed on the other, so that a test's Ctrl-C lands in this step however fast the
        // machine embeds. Unset, as everywhere but in those tests, it costs nothing.
        if let gate = environmentVariable("XKCD_SEARCH_TEST_EMBEDDING_GATE") { await Self.wait(at: gate) }
        for batch in stride(from: 0, to: pending.count, by: batchSize).map({
            pending[$0..<min($0 + batchSize, pending.count)]
        }) {
            // Between batches: each one stored is kept, and the next run goes on from there.
            if Task.isCancelled { break }
            let vectors = await withTaskGroup(of: [ComicVector]?.self) { group in
                var made: [ComicVector] = []
                var next = batch.makeIterator()
                func enqueue() {
                    // Cancelled: what is in flight is finished and kept, nothing more is started.
                    guard !Task.isCancelled, let item = next.next() else { return }
                    group.addTask { [encoder] in
                        // A passage takes a tenth of a second of CPU.
                        await offTheTaskPool {
                            let vectors = item.tokens.enumerated().map { index, tokens in
                                ComicVector(
                                    id: item.id, passage: index, model: encoder.identity, textDigest: item.digest,
                                    vector: encoder.embedding(forTokenIDs: tokens))
                            }
                            // NaN from weights damaged where only some words reach them: never stored.
                            return vectors.allSatisfy { ComicVector.isUnitLength($0.vector) } ? vectors : nil
                        }
                    }
                }
                for _ in 0..<width { enqueue() }
                while let vectors = await group.next() {
                    enqueue()
                    made += vectors ?? []
                    state.completed += 1
                    if vectors == nil { state.failed += 1 }
                    progress(state)
                }
                return made
            }
            try database.replaceVectors(vectors)
            report.embedded = state.completed - state.failed
        }
        report.failed = state.failed
        report.isInterrupted = Task.isCancelled
        return report
    }

    /// Embeds the index's linked passages (``LinkedPassage``) that have no vector of this model,
    /// a batch at a time, each batch its own transaction.
    ///
    /// - Returns: how many of each kind were embedded; one the model made no usable vector of is
    ///   left without. Cancelled, it stops after the batch under way, which is kept.
    public func embedLinkedPassages() async throws -> (linked: Int, written: Int) {
        let pending = try database.linkedPassagesToEmbed(model: encoder.identity, dimensions: encoder.dimensions)
        var embedded = (linked: 0, written: 0)
        for start in stride(from: 0, to: pending.count, by: batchSize) {
            if Task.isCancelled { break }
            let batch = pending[start..<min(start + batchSize, pending.count)]
            let vectors = await offTheTaskPool { [encoder] in
                batch.compactMap { passage -> (id: Int64, vector: [Float], isWritten: Bool)? in
                    let vector = encoder.embedding(forTokenIDs: encoder.tokenIDs(for: passage.text))
                    return ComicVector.isUnitLength(vector) ? (passage.id, vector, passage.isWritten) : nil
                }
            }
            try database.storeLinkedPassageVectors(vectors.map { ($0.id, $0.vector) }, model: encoder.identity)
            let written = vectors.count(where: \.isWritten)
            embedded.written += written
            embedded.linked += vectors.count - written
        }
        return embedded
    }

    /// Waits until the writer of the FIFO at `path` closes it (returns at once when there is
    /// no such FIFO).
    private static func wait(at path: String) async {
        await offTheTaskPool {
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { return }
            var byte: UInt8 = 0
            while read(descriptor, &byte, 1) > 0 {}
            close(descriptor)
        }
    }

    /// The vectors of `shipped` that this model made of the pending comics' tokens, read row by
    /// row until done or cancelled; every comic's passages complete, the first of a passage given
    /// twice. What could not be used is counted in `report`.
    private func importable(
        from shipped: String, for pending: [(id: Comic.ID, tokens: [[Int32]], digest: String)],
        into report: inout VectorReport
    ) -> [ComicVector] {
        let wanted = Dictionary(
            uniqueKeysWithValues: pending.map { ($0.id, (digest: $0.digest, passages: $0.tokens.count)) })
        var found: [Comic.ID: [Int: ComicVector]] = [:]
        var duplicates = 0
        do {
            report.refusedRows = try ComicDatabase.forEachVector(
                inFile: shipped, model: encoder.identity, dimensions: encoder.dimensions
            ) { vector in
                guard !Task.isCancelled else { return false }
                guard let want = wanted[vector.id], want.digest == vector.textDigest else { return true }
                guard (0..<want.passages).contains(vector.passage), found[vector.id]?[vector.passage] == nil else {
                    duplicates += 1
                    return true
                }
                found[vector.id, default: [:]][vector.passage] = vector
                return true
            }
        } catch {
            report.unusableFile = error.description
        }
        report.refusedRows += duplicates
        return found.flatMap { id, passages in
            passages.count == wanted[id]?.passages ? passages.values.sorted { $0.passage < $1.passage } : []
        }
    }

    /// A digest of the tokens the model reads of a comic's passages (FNV-1a, 64 bits, as hex):
    /// what decides the vectors, so that a change past the model's length limit embeds nothing
    /// again.
    static func digest(of passages: [[Int32]]) -> String {
        var digest = FNV1a()
        for tokens in passages {
            for token in tokens + [-1] {
                withUnsafeBytes(of: token.littleEndian) { digest.combine($0) }
            }
        }
        return String(digest.value, radix: 16)
    }
}
