// Relevance on a known-item set: MRR@10, hit@1 and hit@10, overall and per kind.
//
//   swift run -c release Relevance [--db PATH] [--set ../../shared/eval/dev.tsv] [--verbose]
//       [--fields 6,3,1.5,1] [--norms .5,.5,.75,.75] [--k1 1.2] [--coverage 10] [--title 5]
//
// Each line of the set is `query<TAB>relevant nums<TAB>kind<TAB>note`; `[num:A..B]` and
// `[year:…]` in a query become the engine's own filters.
import Foundation
import XKCDKit

let arguments = Array(CommandLine.arguments.dropFirst())
nonisolated func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
func numbers(_ text: String?) -> [Double]? { text?.split(separator: ",").compactMap { Double($0) } }

let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let setPath = option("--set") ?? here.appendingPathComponent("../../../shared/eval/dev.tsv").standardized.path
let databasePath = option("--db") ?? Paths().databasePath
let verbose = arguments.contains("--verbose")

var weights = RankingWeights()
if let fields = numbers(option("--fields")), fields.count == 4 { weights.fields = fields }
if let norms = numbers(option("--norms")), norms.count == 4 { weights.lengthNormalization = norms }
if let k1 = option("--k1").flatMap(Double.init) { weights.k1 = k1 }
if let coverage = option("--coverage").flatMap(Double.init) { weights.coverage = coverage }
if let title = option("--title").flatMap(Double.init) { weights.titleCoverage = title }

guard let set = try? String(contentsOfFile: setPath, encoding: .utf8) else {
    FileHandle.standardError.write(Data("relevance: cannot read \(setPath)\n".utf8))
    exit(1)
}
let engine = SearchEngine(database: try ComicDatabase.open(at: databasePath), weights: weights)

struct Tally { var count = 0, reciprocalRanks = 0.0, hitsAt1 = 0, hitsAt10 = 0 }
var tallies: [String: Tally] = [:]
var kinds: [String] = []
let clock = ContinuousClock()
let start = clock.now
for line in set.split(separator: "\n").dropFirst() {
    let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
    guard columns.count >= 3 else { continue }
    let query = columns[0].replacingOccurrences(of: "[", with: "").replacingOccurrences(of: "]", with: "")
    let relevant = Set(columns[1].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
    let kind = columns[2]
    let queryStart = clock.now
    let results = try engine.search(query, limit: 10)
    if arguments.contains("--timing") { print("\(clock.now - queryStart)\t\(query)") }
    let rank = results.results.firstIndex { relevant.contains($0.id) }.map { $0 + 1 }
    if !kinds.contains(kind) { kinds.append(kind) }
    for key in [kind, "all"] {
        tallies[key, default: Tally()].count += 1
        tallies[key]!.reciprocalRanks += rank.map { 1 / Double($0) } ?? 0
        tallies[key]!.hitsAt1 += rank == 1 ? 1 : 0
        tallies[key]!.hitsAt10 += rank != nil ? 1 : 0
    }
    if verbose, rank != 1 {
        let top = results.results.prefix(3).map { "#\($0.id) \($0.title)" }.joined(separator: ", ")
        let correction = results.corrected.map { " [searched: \($0)]" } ?? ""
        print("rank \(rank.map(String.init) ?? "-")\t\(query)\t(\(columns.count > 3 ? columns[3] : ""))\tgot \(top)\(correction)")
    }
}
let elapsed = clock.now - start
print("kind       queries  MRR@10  hit@1  hit@10")
for kind in kinds + ["all"] {
    let t = tallies[kind]!
    let n = Double(t.count)
    print(
        kind.padding(toLength: 10, withPad: " ", startingAt: 0)
            + String(format: " %7d  %6.3f  %5.2f  %6.2f", t.count, t.reciprocalRanks / n, Double(t.hitsAt1) / n, Double(t.hitsAt10) / n))
}
print("elapsed: \(elapsed)")
