import FoundationEssentials
import GRDB

/// Field lengths of every comic, loaded once per ranking generation and shared by queries.
struct DocumentLengths: Sendable {
    /// Set anew by each rebuild of the ranking index, and anew with ``stalePrefix`` each time
    /// documents change before the next (``ComicDatabase/rankingIndexIsCurrent()``).
    var generation: String
    /// `lengths[id * 4 + field]`.
    var lengths: [Float]
    var averages: [Double]
    var documentCount: Int
    /// Whether the ranking index holds the documents as they are.
    var isCurrent: Bool { !generation.hasPrefix(Self.stalePrefix) }
    static let stalePrefix = "stale-"

    /// The stored generation, read on every search to know whether cached lengths still hold.
    static func generation(_ db: Database) throws -> String {
        try ComicDatabase.setting(.rankingGeneration, db) ?? ""
    }
    /// The highest comic number `lengths` has room for.
    var maxID: Int { lengths.count / RankingIndex.fieldCount - 1 }

    /// The stored form: ``format``, the number of comics, then each length
    /// (`lengths[id * 4 + field]`), 32-bit little-endian. Every search process loads it, and
    /// decoding a varint per length was a tenth of one; this is read in one pass.
    static func blob(lengths: [UInt32], documentCount: UInt32) -> Data {
        var data = Data(capacity: 4 * (lengths.count + 2))
        for value in [format, documentCount] + lengths {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// The first word of the stored form ("XKL1"): the varints an older version wrote under the
    /// same name, or damaged data, are told apart from it.
    static let format: UInt32 = 0x314C_4B58

    static let damaged = StoreError.rankingDataDamaged

    static func load(_ db: Database, generation: String) throws -> DocumentLengths {
        var loaded: DocumentLengths?
        try db.cachedStatement(sql: "SELECT value FROM rankingData WHERE name = 'lengths'").forEachRow { row in
            loaded = try decode(row.bytes(0), generation: generation)
        }
        return try loaded ?? decode(UnsafeRawBufferPointer(start: nil, count: 0), generation: generation)
    }

    private static func decode(_ blob: UnsafeRawBufferPointer, generation: String) throws -> DocumentLengths {
        let fieldCount = RankingIndex.fieldCount
        // Four fields, read four at a time below.
        assert(fieldCount == 4)
        var totals = [Double](repeating: 0, count: fieldCount)
        // An index with no comics yet has no lengths.
        guard !blob.isEmpty else {
            return DocumentLengths(
                generation: generation, lengths: [Float](repeating: 0, count: fieldCount),
                averages: [Double](repeating: 1, count: fieldCount), documentCount: 0)
        }
        guard blob.count >= 8, (blob.count - 8) % (4 * fieldCount) == 0,
            UInt32(littleEndian: blob.loadUnaligned(as: UInt32.self)) == format
        else { throw damaged }
        let valueCount = (blob.count - 8) / 4
        let documentCount = Int(UInt32(littleEndian: blob.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        var lengths = [Float](unsafeUninitializedCapacity: valueCount) { lengths, count in
            // Comic by comic, each field's total summed in number order as before, the four
            // fields of a comic side by side in one vector.
            var fieldTotals = SIMD4<Double>()
            for base in stride(from: 0, to: valueCount, by: 4) {
                let stored = blob.loadUnaligned(fromByteOffset: 4 * (base + 2), as: SIMD4<UInt32>.self)
                #if _endian(big)
                    let counts = SIMD4(
                        stored[0].byteSwapped, stored[1].byteSwapped, stored[2].byteSwapped, stored[3].byteSwapped)
                #else
                    let counts = stored
                #endif
                // As signed: a field is never 2^31 tokens long, and signed integers convert to
                // floating point in one instruction.
                let comic = SIMD4<Int32>(truncatingIfNeeded: counts)
                UnsafeMutableRawPointer(lengths.baseAddress! + base).storeBytes(
                    of: SIMD4<Float>(comic), as: SIMD4<Float>.self)
                fieldTotals += SIMD4<Double>(comic)
            }
            totals = [fieldTotals[0], fieldTotals[1], fieldTotals[2], fieldTotals[3]]
            count = valueCount
        }
        if lengths.isEmpty { lengths = [Float](repeating: 0, count: fieldCount) }
        let count = max(documentCount, 1)
        return DocumentLengths(
            generation: generation, lengths: lengths, averages: totals.map { max($0 / Double(count), 1) },
            documentCount: documentCount)
    }
}

extension DocumentLengths {
    /// The BM25F weight of one occurrence in a field of `length` tokens, which no query changes.
    /// One expression for the cached weights and the ones computed as met, so that both agree
    /// to the bit.
    @inline(__always)
    static func occurrenceWeight(fieldWeight: Double, b: Double, length: Float, average: Double) -> Double {
        fieldWeight / (1 - b + b * Double(length) / average)
    }

    /// Per comic and field (`[id * 4 + field]`), ``occurrenceWeight(fieldWeight:b:length:average:)``.
    func occurrenceWeights(_ weights: RankingWeights) -> [Double] {
        let fieldCount = RankingIndex.fieldCount
        return lengths.indices.map { index in
            let field = index % fieldCount
            return Self.occurrenceWeight(
                fieldWeight: weights.fields[field], b: weights.lengthNormalization[field], length: lengths[index],
                average: averages[field])
        }
    }
}
