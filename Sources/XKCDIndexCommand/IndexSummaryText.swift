import Foundation
import XKCDIndexer
import XKCDKit

/// The summary of a run as one line of text (`index` without `--json`).
enum IndexSummaryText {
    /// What was fetched, the new comics, and every failure with its reason.
    static func line(_ report: IndexReport, vectors: VectorReport?) -> String {
        var parts = [
            String(
                format: "indexed up to #%d: %d comics and %d explanations fetched in %.1f s",
                report.latest, report.comicsFetched, report.explanationsFetched, report.elapsed.seconds)
        ]
        if report.newComics.isEmpty {
            parts.append("no new comics")
        } else {
            let shown = report.newComics.suffix(20).map { "#\($0.id) \(sanitized($0.title))" }
            let earlier = report.newComics.count > 20 ? " (and \(report.newComics.count - 20) earlier)" : ""
            parts.append("new: " + shown.joined(separator: ", ") + earlier)
        }
        if let vectors, vectors.embedded + vectors.imported > 0 {
            parts.append(
                "\(vectors.embedded + vectors.imported) comics embedded for search by meaning"
                    + (vectors.imported > 0 ? " (\(vectors.imported) from precomputed vectors)" : ""))
        }
        if let vectors, vectors.linkedPassagesEmbedded + vectors.writtenSituationsEmbedded > 0 {
            let (linked, written) = (vectors.linkedPassagesEmbedded, vectors.writtenSituationsEmbedded)
            let kinds = [
                linked > 0 ? "\(linked) linked passage\(linked == 1 ? "" : "s")" : nil,
                written > 0 ? "\(written) written situation\(written == 1 ? "" : "s")" : nil,
            ]
            parts.append(kinds.compactMap { $0 }.joined(separator: " and ") + " embedded")
        }
        if let vectors, vectors.refusedRows > 0 {
            parts.append(
                "\(vectors.refusedRows) rows of the vectors file left out (no vector of this model: a wrong type or length, not of unit length, or given twice)"
            )
        }
        if let vectors, vectors.failed > 0 {
            parts.append(
                "\(vectors.failed) comics not embedded: the model made no usable vector of them; its weights are damaged"
            )
        }
        if !report.failures.isEmpty {
            let failures = report.failures.map { "#\($0.id) \($0.resource): \(sanitized($0.message))" }
            parts.append(
                "\(report.failures.count) failed, retried by the next run: " + failures.joined(separator: "; "))
        }
        return parts.joined(separator: "; ")
    }
}
