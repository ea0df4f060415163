import Foundation
import Logging
import XKCDEmbed
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
    /// Comics whose text was read and tokenized to compare it with their vectors' (none when
    /// the run was told no text changed and every comic had a vector of this model).
    public var textsRead = 0
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

    /// - Parameter width: how many comics are embedded at once (one per core: the model's
    ///   matrix products run on the calling thread).
    public init(
        database: ComicDatabase, encoder: SentenceEncoder, width: Int = ProcessInfo.processInfo.activeProcessorCount,
        batchSize: Int = 32
    ) {
        self.database = database
        self.encoder = encoder
        self.width = max(1, width)
        self.batchSize = max(1, batchSize)
    }

    /// The text of a comic that the model reads: its title, title text, transcript and
    /// explanation, of which the model keeps the first 256 tokens.
    ///
    /// One passage per comic. Fused with the lexical ranking, it measured better than the same
    /// without the transcript (MRR@10 on descriptions.tsv 0.913 against 0.899; dev.tsv 1.000
    /// against 0.990), and as well as passages over the whole explanation, which cost four times
    /// the vectors and the time (docs/semantic-search.md).
    public static func passages(of document: ComicDocument) -> [String] {
        ["\(document.title). \(document.alt)\n\(document.transcript)\n\(document.explanation)"]
    }

    /// Embeds every comic whose vectors are missing or stale, until done or cancelled.
    ///
    /// - Parameters:
    ///   - shipped: a file of precomputed vectors (``ComicDatabase/vectors(inFile:)``); a vector
    ///     in it is used when it was made by this model from the same tokens.
    ///   - textUnchanged: the caller stored no comic text since the last run (an index run
    ///     that fetched nothing): when every comic has a vector of this model, no text is read.
    ///     Reading and tokenizing every comic's text to find that out was most of a no-op run.
    ///   - progress: called after each comic with how many of those to embed are done.
    public func run(
        importingFrom shipped: String? = nil, textUnchanged: Bool = false,
        progress: @escaping @Sendable (IndexProgress) -> Void = { _ in }
    ) async throws -> VectorReport {
        let sources = try database.vectorSources()
        if textUnchanged {
            let ids = try database.comicIDs()
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
        let ids = try database.comicIDs()
        for start in stride(from: 0, to: ids.count, by: 256) {
            for document in try database.documents(ids: Array(ids[start..<min(start + 256, ids.count)])) {
                let tokens = Self.passages(of: document).map(encoder.tokenIDs(for:))
                let digest = Self.digest(of: tokens)
                textsRead += 1
                let source = VectorSource(model: encoder.identity, textDigest: digest, dimensions: encoder.dimensions)
                if sources[document.id] == source {
                    current += 1
                } else {
                    pending.append((document.id, tokens, digest))
                }
            }
        }

        var imported = 0
        if let shipped, !pending.isEmpty {
            let wanted = Dictionary(uniqueKeysWithValues: pending.map { ($0.id, $0.digest) })
            let usable = try ComicDatabase.vectors(inFile: shipped).filter {
                $0.model == encoder.identity && wanted[$0.id] == $0.textDigest
                    && $0.vector.count == encoder.dimensions && $0.vector.allSatisfy(\.isFinite)
            }
            try database.replaceVectors(usable)
            let done = Set(usable.map(\.id))
            imported = done.count
            pending.removeAll { done.contains($0.id) }
        }

        var state = IndexProgress(completed: 0, total: pending.count, failed: 0)
        progress(state)
        var embedded = 0
        for batch in stride(from: 0, to: pending.count, by: batchSize).map({ pending[$0..<min($0 + batchSize, pending.count)] }) {
            // Between batches: each one stored is kept, and the next run goes on from there.
            guard !Task.isCancelled else {
                return VectorReport(embedded: embedded, imported: imported, current: current, textsRead: textsRead, isInterrupted: true)
            }
            let vectors = await withTaskGroup(of: [ComicVector].self) { group in
                var made: [ComicVector] = []
                var next = batch.makeIterator()
                func enqueue() {
                    guard let item = next.next() else { return }
                    group.addTask { [encoder] in
                        await Self.offTheTaskPool {
                            item.tokens.enumerated().map { index, tokens in
                                ComicVector(
                                    id: item.id, passage: index, model: encoder.identity, textDigest: item.digest,
                                    vector: encoder.embedding(forTokenIDs: tokens))
                            }
                        }
                    }
                }
                for _ in 0..<width { enqueue() }
                while let vectors = await group.next() {
                    enqueue()
                    made += vectors
                    state.completed += 1
                    progress(state)
                }
                return made
            }
            try database.replaceVectors(vectors)
            embedded += batch.count
        }
        return VectorReport(embedded: embedded, imported: imported, current: current, textsRead: textsRead)
    }

    /// Runs `work` on a Dispatch thread and waits for it without holding one of Swift's task
    /// threads: a passage takes a tenth of a second of CPU, and the few task threads (one per
    /// core) would otherwise be held from every other task of the process meanwhile.
    private static func offTheTaskPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { continuation.resume(returning: work()) }
        }
    }

    /// A digest of the tokens the model reads of a comic's passages (FNV-1a, 64 bits, as hex):
    /// what decides the vectors, so that a change past the model's length limit embeds nothing
    /// again.
    static func digest(of passages: [[Int32]]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for tokens in passages {
            for token in tokens + [-1] {
                withUnsafeBytes(of: token.littleEndian) { bytes in
                    for byte in bytes {
                        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
                    }
                }
            }
        }
        return String(hash, radix: 16)
    }
}
