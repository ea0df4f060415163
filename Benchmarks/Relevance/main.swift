// Relevance on a known-item set: MRR@10, hit@1 and hit@10, overall and per kind.
//
//   swift run -c release Relevance [--db PATH] [--set ../../shared/eval/dev.tsv] [--verbose]
//       [--fields 6,3,1.5,1] [--norms .5,.5,.75,.75] [--k1 1.2] [--coverage 10] [--title 5]
//       [--proximity 3] [--sample-quotes N] [--sample-typos N] [--words-only]
//       [--relevant [--passage-words 12] [--passage-weight 0.45] [--passage-nearest 30] [--no-sentences]
//        [--feedback 0] [--feedback-weight 0.5] [--linked-weight 2] [--linked-threshold 0.3]
//        [--written-weight 2] [--written-threshold 0.3]]
//       [--half odd|even] [--folds K] [--dump] [--candidates]
//
// `--relevant` ranks each query as a passage (`xkcd-search relevant`) instead of a search, with
// its settings from the `--passage-…` options. `--half odd` keeps the rows on odd line numbers of
// the file (the header is line 1), `--half even` the others: tune on one half, report on the other.
// `--set` takes several files joined by commas. `--folds K` also reports each of K folds and their
// mean and spread; a row's fold is a hash of its source's repository or site (the fifth column:
// `github.com/OWNER/REPO`, or the host), so that no thread, blog or chat log is in two folds
// (issue 38: every choice is made on the other folds and judged on the one held out). The
// index's linked passages (`index --linked-passages`) are these same rows: each row is ranked
// without those of its own fold, or, without `--folds`, of its own repository or site.
//
// `--sample-quotes N` replaces the set with N remembered lines drawn from the index itself (a
// fixed seed, so runs compare): 4 to 7 consecutive words of a comic's title text or transcript,
// one of them left out in 3 of 10, the comic being the answer. Made from every comic alike, they
// show how the quote kind fares beyond the queries anyone wrote. `--sample-typos N` does the same
// for the typo kind: a title word of five letters or more with one vowel or consonant changed,
// one letter dropped or two swapped, into a word no comic holds.
//
// Each line of the set is `query<TAB>relevant nums<TAB>kind<TAB>note`; `[num:A..B]` and
// `[year:…]` in a query become the engine's own filters.
import BenchmarkSupport
import Foundation
import XKCDFiles
import XKCDIndexer
import XKCDKit
import XKCDStore

let arguments = Array(CommandLine.arguments.dropFirst())
nonisolated func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
func numbers(_ text: String?) -> [Double]? { text?.split(separator: ",").compactMap { Double($0) } }

let setPath =
    option("--set") ?? benchmarksDirectory.appendingPathComponent("../../shared/eval/dev.tsv").standardized.path
let databasePath = option("--db") ?? Paths().databasePath
let verbose = arguments.contains("--verbose")
// `--deep` (with `--relevant`): each query's rank within the first 200 too, as `deep<TAB>line<TAB>kind<TAB>rank`.
let deep = arguments.contains("--deep")

var weights = RankingWeights()
if let fields = numbers(option("--fields")), fields.count == 4 { weights.fields = fields }
if let norms = numbers(option("--norms")), norms.count == 4 { weights.lengthNormalization = norms }
if let k1 = option("--k1").flatMap(Double.init) { weights.k1 = k1 }
if let coverage = option("--coverage").flatMap(Double.init) { weights.coverage = coverage }
if let title = option("--title").flatMap(Double.init) { weights.titleCoverage = title }
if let proximity = option("--proximity").flatMap(Double.init) { weights.proximity = proximity }

let database = try ComicDatabase.open(at: databasePath)
// Ranked by meaning too, as `xkcd-search search` ranks, unless `--words-only`.
var engine = SearchEngine(
    database: database, weights: weights, sentenceModel: arguments.contains("--words-only") ? nil : .located())

// `--embed-passages N`: gives every comic of the index (a copy: this replaces its vectors)
// vectors of N passages of its explanation besides its head, then measures as asked.
if let count = option("--embed-passages").flatMap(Int.init) {
    let encoder = try SentenceModel.located().encoder().get()
    let started = ContinuousClock.now
    let report = try await VectorIndexer(database: database, encoder: encoder, explanationPassages: count).run {
        progress in
        if progress.completed % 100 == 0 {
            print("embedded \(progress.completed) of \(progress.total) comics in \(ContinuousClock.now - started)")
        }
    }
    print("embedded \(report.embedded) comics (\(report.current) current) in \(ContinuousClock.now - started)")
}
// `--query-adapter FILE`: each query's vector mapped by the matrix in FILE (``QueryAdapter``);
// `{fold}` in FILE stands for the row's fold (with `--folds`), so that each fold is ranked with
// an adapter learned without it (scripts of the study: docs/ranking.md).
let adapterPath = option("--query-adapter")
var adapters: [Int: QueryAdapter] = [:]
@MainActor func adapter(forFold fold: Int?) throws -> QueryAdapter? {
    guard let adapterPath else { return nil }
    let key = adapterPath.contains("{fold}") ? (fold ?? -1) : -1
    if let known = adapters[key] { return known }
    let made = try QueryAdapter(
        contentsOf: adapterPath.replacingOccurrences(of: "{fold}", with: String(key)), dimensions: 384)
    adapters[key] = made
    return made
}
// `--combine best|head|mean2|mean3|head0.5`: how a comic's passages make its similarity.
switch option("--combine") {
case "head": engine.passageCombination = .head
case let mean? where mean.hasPrefix("mean"): engine.passageCombination = .meanOfBest(Int(mean.dropFirst(4)) ?? 2)
case let head? where head.hasPrefix("head"): engine.passageCombination = .headAndBest(Double(head.dropFirst(4)) ?? 0.5)
default: break
}

/// `count` lines of a set, each made by `line` from a comic drawn at random (nil to draw again),
/// with a fixed seed so that runs compare.
func sampledSet(
    _ count: Int, seed: UInt64, _ line: (ComicPage, inout SplitMix64) throws -> String?
) throws -> String {
    let library = Library(database: database)
    let latest = try library.resolve(.latest)
    var random = SplitMix64(seed: seed)
    var lines = ["query\trelevant\tkind\tnote"]
    var attempts = 0
    while lines.count <= count, attempts < count * 50 {
        attempts += 1
        guard let page = try? library.page(Int.random(in: 1...latest, using: &random)),
            let made = try line(page, &random)
        else { continue }
        lines.append(made)
    }
    return lines.joined(separator: "\n")
}

func sampledQuotes(_ count: Int) throws -> String {
    try sampledSet(count, seed: 5) { page, random in
        let source = Bool.random(using: &random) ? page.comic.alt : page.transcript
        let words = source.split(whereSeparator: \.isWhitespace).map { word in
            String(word.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "'" })
        }.filter { !$0.isEmpty }
        guard words.count >= 12 else { return nil }
        let length = Int.random(in: 4...7, using: &random)
        let start = Int.random(in: 0...(words.count - length), using: &random)
        var line = Array(words[start..<start + length])
        if Int.random(in: 0..<10, using: &random) < 3 {
            line.remove(at: Int.random(in: 0..<line.count, using: &random))
        }
        return "\(line.joined(separator: " "))\t\(page.comic.id)\tquote-sample\t#\(page.comic.id)"
    }
}

func sampledTypos(_ count: Int) throws -> String {
    let vowels = Array("aeiou")
    let consonants = Array("bcdfghklmnprstvw")
    return try sampledSet(count, seed: 7) { page, random in
        let words = page.comic.title.lowercased().split(separator: " ").map(Array.init).filter {
            $0.count >= 5 && $0.allSatisfy { $0.isASCII && $0.isLetter }
        }
        guard var word = words.randomElement(using: &random) else { return nil }
        let original = String(word)
        let position = Int.random(in: 0..<word.count - 1, using: &random)
        let kind = ["vowel", "consonant", "drop", "swap"].randomElement(using: &random)!
        switch kind {
        case "vowel" where vowels.contains(word[position]):
            word[position] = vowels.filter { $0 != word[position] }.randomElement(using: &random)!
        case "consonant" where consonants.contains(word[position]):
            word[position] = consonants.filter { $0 != word[position] }.randomElement(using: &random)!
        case "drop": word.remove(at: position)
        case "swap" where word[position] != word[position + 1]: word.swapAt(position, position + 1)
        default: return nil
        }
        let typo = String(word)
        guard try database.readTermScores(for: [typo]).unseenWords == [typo] else { return nil }  // a real word
        return "\(typo)\t\(page.comic.id)\ttypo-sample\t#\(page.comic.id) \(original), \(kind)"
    }
}

let sampled =
    try option("--sample-quotes").flatMap(Int.init).map(sampledQuotes)
    ?? option("--sample-typos").flatMap(Int.init).map(sampledTypos)
/// The files of `--set`, each with its header, joined: the rows of each keep their own line numbers.
let files = setPath.split(separator: ",").map(String.init)
let fileTexts = files.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }
guard let set = sampled ?? (fileTexts.count == files.count ? fileTexts.joined(separator: "\n") : nil) else {
    FileHandle.standardError.write(Data("relevance: cannot read \(setPath)\n".utf8))
    exit(1)
}
let folds = option("--folds").flatMap(Int.init)

/// What a row's source is grouped by: its repository (`github.com/OWNER/REPO`) or host.
func sourceKey(_ source: String) -> String {
    let parts = source.split(separator: "/").map(String.init)
    // "https:", "github.com", OWNER, REPO, … or "https:", HOST, …
    let key =
        parts.count > 3 && parts[1] == "github.com"
        ? parts[1...3].joined(separator: "/") : parts.dropFirst().first ?? source
    return key.lowercased()
}

/// The fold of a row's source: FNV-1a of its ``sourceKey(_:)``.
func fold(ofSource source: String, in count: Int) -> Int {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in sourceKey(source).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return Int(hash % UInt64(count))
}

/// The sources of the set's rows: the index's linked passages (`index --linked-passages`) are
/// these same rows, so a row is ranked without those of its own fold (with `--folds`) or of its
/// own repository or site: a row never finds its own comic through itself.
let setSources = Set(
    set.split(separator: "\n").compactMap { line -> String? in
        let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
        return columns.count > 4 && columns[0] != "query" ? String(columns[4]) : nil
    })
func linkedSourcesLeftOut(for source: String) -> Set<String> {
    if let folds {
        let own = fold(ofSource: source, in: folds)
        return setSources.filter { fold(ofSource: $0, in: folds) == own }
    }
    let own = sourceKey(source)
    return setSources.filter { sourceKey($0) == own }
}

var relevantSettings = RelevantSettings()
if let words = option("--passage-words").flatMap(Int.init) { relevantSettings.words = words }
if let weight = option("--passage-weight").flatMap(Double.init) { relevantSettings.meaningWeight = weight }
if let weight = option("--title-weight").flatMap(Double.init) { relevantSettings.titleWeight = weight }
if let weight = option("--link-weight").flatMap(Double.init) { relevantSettings.linkWeight = weight }
if let links = option("--full-links").flatMap(Int.init) { relevantSettings.linksForFullPrior = links }
if let nearest = option("--passage-nearest").flatMap(Int.init) { relevantSettings.nearest = nearest }
if arguments.contains("--no-sentences") { relevantSettings.sentences = false }
if let weight = option("--linked-weight").flatMap(Double.init) { relevantSettings.linkedPassageWeight = weight }
if let threshold = option("--linked-threshold").flatMap(Double.init) {
    relevantSettings.linkedPassageThreshold = threshold
}
if let weight = option("--written-weight").flatMap(Double.init) { relevantSettings.writtenSituationWeight = weight }
if let threshold = option("--written-threshold").flatMap(Double.init) {
    relevantSettings.writtenSituationThreshold = threshold
}
if let count = option("--written-candidates").flatMap(Int.init) { relevantSettings.writtenSituationCandidates = count }
if let feedback = option("--feedback").flatMap(Int.init) { relevantSettings.feedback = feedback }
if let weight = option("--feedback-weight").flatMap(Double.init) { relevantSettings.feedbackWeight = weight }
let half = option("--half")
// `--below N`: only comics up to #N are ranked, and only the queries for them are asked (an
// index whose first comics alone have some new kind of vector, while the rest are embedded).
let below = option("--below").flatMap(Int.init)

struct Tally { var count = 0, reciprocalRanks = 0.0, hitsAt1 = 0, hitsAt10 = 0 }
var tallies: [String: Tally] = [:]
var kinds: [String] = []
var refused = 0
let clock = ContinuousClock()
let start = clock.now
var lineNumber = 0
for line in set.split(separator: "\n", omittingEmptySubsequences: false) {
    // Line numbers of each file, its header being line 1.
    lineNumber = line.hasPrefix("query\t") ? 1 : lineNumber + 1
    if lineNumber == 1 || line.isEmpty { continue }
    if half == "odd" && lineNumber % 2 == 0 || half == "even" && lineNumber % 2 == 1 { continue }
    let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    guard columns.count >= 3 else { continue }
    let query = columns[0].replacingOccurrences(of: "[", with: "").replacingOccurrences(of: "]", with: "")
    let relevant = Set(columns[1].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    let kind = columns[2]
    if let below, !relevant.contains(where: { $0 <= below }) { continue }
    let queryStart = clock.now
    engine.queryAdapter = try adapter(
        forFold: folds.map { fold(ofSource: columns.count > 4 ? columns[4] : query, in: $0) })
    let found: [(id: Int, title: String)]
    var correction = ""
    // A row without a source (the known-item sets) is no linked passage: nothing to leave out.
    relevantSettings.excludedLinkedSources = columns.count > 4 ? linkedSourcesLeftOut(for: columns[4]) : []
    engine.passageSettings.excludedLinkedSources = relevantSettings.excludedLinkedSources
    if arguments.contains("--relevant") {
        let results = try engine.relevant(
            to: query, limit: below == nil && !deep ? (arguments.contains("--candidates") ? 50 : 10) : 200,
            settings: relevantSettings)
        if deep {
            let deepRank = results.results.firstIndex { relevant.contains($0.id) }.map { String($0 + 1) } ?? "-"
            print("deep\t\(lineNumber)\t\(kind)\t\(deepRank)")
        }
        if let problem = results.semanticProblem {
            print("error: \(problem)")
            exit(1)
        }
        found = Array(results.results.filter { $0.id <= below ?? .max }.prefix(10).map { ($0.id, $0.title) })
        // `--candidates`: every comic ranked for the row with what a learned ranker could read
        // (scripts/ranker/), a line each: the file's line, the source, the kind, whether it is
        // the comic linked, its rank, fused score, cosine, title held, explanations linking to
        // it, words shared, the passage's words, a sentence matched, its number and year.
        if arguments.contains("--candidates") {
            let passageWords = results.words.count
            for (index, comic) in results.results.enumerated() {
                let fields: [String] = [
                    "cand", String(lineNumber), columns.count > 4 ? columns[4] : "", kind,
                    relevant.contains(comic.id) ? "1" : "0", String(index + 1), String(comic.score),
                    String(comic.similarity ?? 0), comic.holdsTitle ? "1" : "0", String(comic.linkedFrom),
                    String(comic.words.count), String(passageWords), comic.sentence == nil ? "0" : "1",
                    String(comic.id), String(comic.date.year),
                ]
                print(fields.joined(separator: "\t"))
            }
        }
        // `--dump`: what a confidence word could be read from, a line a row (docs/ranking.md):
        // the file's line, the source, the kind, the rank, the first two scores and the first's
        // cosine.
        if arguments.contains("--dump") {
            let scores = results.results.map(\.score)
            let first = scores.first ?? 0
            let second = scores.count > 1 ? scores[1] : 0
            let similarity = results.results.first?.similarity ?? 0
            let rankText = results.results.firstIndex { relevant.contains($0.id) }.map { String($0 + 1) } ?? "-"
            print(
                "dump\t\(lineNumber)\t\(columns.count > 4 ? columns[4] : "")\t\(kind)\t\(rankText)\t\(first)\t\(second)\t\(similarity)"
            )
        }
    } else if let results = try? engine.search(query, limit: 10) {
        if let problem = results.semanticProblem {
            print("error: \(problem)")
            exit(1)
        }
        found = results.results.map { ($0.id, $0.title) }
        correction = results.corrected.map { " [searched: \($0)]" } ?? ""
    } else {
        // A passage pasted as a query may not parse (a stray parenthesis): nothing found.
        found = []
        correction = " [refused by the query parser]"
        refused += 1
    }
    if arguments.contains("--timing") { print("\(clock.now - queryStart)\t\(query)") }
    let rank = found.firstIndex { relevant.contains($0.id) }.map { $0 + 1 }
    if !kinds.contains(kind) { kinds.append(kind) }
    let foldKeys: [String] =
        folds.map { count in
            let index = fold(ofSource: columns.count > 4 ? columns[4] : query, in: count)
            return [kind + "#\(index)", "all#\(index)"]
        } ?? []
    for key in [kind, "all"] + foldKeys {
        tallies[key, default: Tally()].count += 1
        tallies[key]!.reciprocalRanks += rank.map { 1 / Double($0) } ?? 0
        tallies[key]!.hitsAt1 += rank == 1 ? 1 : 0
        tallies[key]!.hitsAt10 += rank != nil ? 1 : 0
    }
    if verbose, rank != 1 {
        let top = found.prefix(3).map { "#\($0.id) \($0.title)" }.joined(separator: ", ")
        print(
            "rank \(rank.map(String.init) ?? "-")\t\(query.prefix(80))\t(\(columns.count > 3 ? columns[3] : ""))\tgot \(top)\(correction)"
        )
    }
}
let elapsed = clock.now - start
print("kind       queries  MRR@10  hit@1  hit@10")
for kind in kinds + ["all"] {
    let t = tallies[kind]!
    let n = Double(t.count)
    print(
        kind.padding(toLength: 10, withPad: " ", startingAt: 0)
            + String(
                format: " %7d  %6.3f  %5.2f  %6.2f", t.count, t.reciprocalRanks / n, Double(t.hitsAt1) / n,
                Double(t.hitsAt10) / n))
}
if let folds {
    // Each fold's MRR@10 by kind, then their mean and standard deviation over the folds.
    print("MRR@10 by fold (\(folds) folds by source)")
    for kind in kinds + ["all"] {
        let scores = (0..<folds).compactMap { index in
            tallies[kind + "#\(index)"].map { $0.reciprocalRanks / Double($0.count) }
        }
        let mean = scores.reduce(0, +) / Double(scores.count)
        let spread = (scores.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(max(scores.count - 1, 1)))
            .squareRoot()
        let counts = (0..<folds).map { tallies[kind + "#\($0)"]?.count ?? 0 }
        print(
            kind.padding(toLength: 10, withPad: " ", startingAt: 0)
                + scores.map { String(format: " %5.3f", $0) }.joined()
                + String(format: "   mean %5.3f sd %5.3f", mean, spread) + "   rows \(counts)")
    }
}
if refused > 0 { print("refused by the query parser: \(refused)") }
print("elapsed: \(elapsed)")
