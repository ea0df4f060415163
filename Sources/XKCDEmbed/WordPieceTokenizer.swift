import Foundation

/// BERT's uncased tokenizer: the basic tokenizer's clean-up, lower-casing, accent stripping and
/// punctuation splitting, then WordPiece over the model's vocabulary.
///
/// It follows the tokenizer sentence-transformers loads for this model (Hugging Face
/// `tokenizers`: `BertNormalizer`, `BertPreTokenizer`, `WordPiece`), which works on Unicode
/// scalars; `Tests/XKCDEmbedTests` holds it to that tokenizer's ids for the reference texts.
struct WordPieceTokenizer: Sendable {
    private let vocabulary: Vocabulary
    /// How many pieces the vocabulary holds: every id is below it.
    var vocabularyCount: Int { vocabulary.count }
    let classifierID: Int32
    let separatorID: Int32
    private let unknownID: Int32
    /// Longer words are one [UNK] (BERT's `max_input_chars_per_word`).
    private let maximumWordLength = 100

    init(vocabularyAt url: URL, expectedCount: Int) throws(EmbedError) {
        let vocabulary = try Vocabulary(contentsOf: url)
        guard vocabulary.count == expectedCount else {
            throw .modelDamaged(
                path: url.path, reason: "the vocabulary has \(vocabulary.count) tokens, the model \(expectedCount)")
        }
        guard let classifier = vocabulary.id(of: "[CLS]"), let separator = vocabulary.id(of: "[SEP]"),
            let unknown = vocabulary.id(of: "[UNK]")
        else {
            throw .modelDamaged(path: url.path, reason: "the vocabulary lacks [CLS], [SEP] or [UNK]")
        }
        self.vocabulary = vocabulary
        (classifierID, separatorID, unknownID) = (classifier, separator, unknown)
    }

    /// The WordPiece ids of `text`, without [CLS] and [SEP].
    func pieceIDs(for text: String) -> [Int32] {
        var ids: [Int32] = []
        for word in Self.words(in: text) {
            appendPieces(of: word, to: &ids)
        }
        return ids
    }

    /// Splits `text` as the basic tokenizer does: control characters dropped, CJK ideographs
    /// made words of their own, accents stripped, lower-cased, then split at white space
    /// (dropped) and at each punctuation character (kept as a word).
    static func words(in text: String) -> [[Unicode.Scalar]] {
        var cleaned = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value == 0 || scalar.value == 0xFFFD || isControl(scalar) { continue }
            if isWhitespace(scalar) {
                cleaned.append(" ")
            } else if isCJKIdeograph(scalar) {
                cleaned.append(" ")
                cleaned.append(scalar)
                cleaned.append(" ")
            } else {
                cleaned.append(scalar)
            }
        }
        // Accents off before lower-casing, as BertNormalizer orders it; lower-casing maps each
        // scalar on its own (no final sigma), as its per-character mapping does.
        var words: [[Unicode.Scalar]] = []
        var word: [Unicode.Scalar] = []
        for scalar in String(cleaned).decomposedStringWithCanonicalMapping.unicodeScalars
        where scalar.properties.generalCategory != .nonspacingMark {
            for lower in scalar.properties.lowercaseMapping.unicodeScalars {
                if isWhitespace(lower) {
                    if !word.isEmpty { words.append(word) }
                    word = []
                } else if isPunctuation(lower) {
                    if !word.isEmpty { words.append(word) }
                    words.append([lower])
                    word = []
                } else {
                    word.append(lower)
                }
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// Greedy longest-match-first WordPiece: pieces after the first take the "##" prefix; a word
    /// with a part no piece matches, or longer than 100 scalars, is one [UNK].
    private func appendPieces(of word: [Unicode.Scalar], to ids: inout [Int32]) {
        guard word.count <= maximumWordLength else {
            ids.append(unknownID)
            return
        }
        // The word's UTF-8 bytes, and where each scalar starts in them.
        var bytes: [UInt8] = []
        var boundaries: [Int] = []
        for scalar in word {
            boundaries.append(bytes.count)
            bytes.append(contentsOf: UTF8.encode(scalar)!)
        }
        boundaries.append(bytes.count)
        let firstPiece = ids.count
        var candidate: [UInt8] = []
        var start = 0
        while start < word.count {
            var end = word.count
            var match: Int32?
            while start < end {
                candidate.removeAll(keepingCapacity: true)
                if start > 0 { candidate.append(contentsOf: "##".utf8) }
                candidate.append(contentsOf: bytes[boundaries[start]..<boundaries[end]])
                if let id = candidate.withUnsafeBufferPointer({ vocabulary.id(of: $0) }) {
                    match = id
                    break
                }
                end -= 1
            }
            guard let match else {
                ids.removeSubrange(firstPiece...)
                ids.append(unknownID)
                return
            }
            ids.append(match)
            start = end
        }
    }

    /// `tokenizers`' `is_whitespace`: tab, newline, carriage return, or Unicode White_Space.
    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar.properties.isWhitespace
    }

    /// `tokenizers`' `is_control`: the C* categories, except the tab, newline and carriage return
    /// that count as white space.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\t" || scalar == "\n" || scalar == "\r" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .privateUse, .surrogate, .unassigned: return true
        default: return false
        }
    }

    /// BERT's `_is_punctuation`: every ASCII non-letter, non-digit printable (so `$`, `+`, `^`
    /// and `|` too), and the Unicode P* categories.
    private static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 33...47, 58...64, 91...96, 123...126: return true
        default: break
        }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default: return false
        }
    }

    /// The CJK Unified Ideographs blocks BERT pads with spaces (not Hangul or kana).
    private static func isCJKIdeograph(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0x2A700...0x2B73F, 0x2B740...0x2B81F,
            0x2B820...0x2CEAF, 0xF900...0xFAFF, 0x2F800...0x2FA1F:
            return true
        default: return false
        }
    }
}
