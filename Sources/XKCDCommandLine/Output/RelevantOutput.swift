import Foundation
import XKCDKit

/// How `relevant` prints the comics that fit a passage.
public enum RelevantOutput: Sendable {
    /// `#1234  Title  (date)` (the first followed by how sure it is), then why: the passage's words it holds, its text that holds them,
    /// the passage's sentence nearest to it in meaning, whether the passage names its title and
    /// how many other explanations link to it.
    public static func text(_ found: RelevantResults, color: Bool, width: Int) -> String {
        let style = Style(enabled: color)
        guard !found.results.isEmpty else { return "no comics found\n" }
        var out = ""
        for result in found.results {
            out += style.bold("#\(result.id)") + "  " + style.bold(sanitized(result.title)) + "  (\(result.date))"
            // How sure the first is, on its line: "fits well", "might fit", "a long shot".
            if result.id == found.results.first?.id, let confidence = found.confidence {
                out += "  " + style.dim(confidence.rawValue)
            }
            out += "\n"
            if !result.words.isEmpty {
                out += "    " + style.dim("words: ") + sanitized(result.words.joined(separator: ", ")) + "\n"
            }
            for line in SearchOutput.wrap(sanitized(result.snippet), width: max(width - 4, 30), maxLines: 2) {
                out += "    " + SearchOutput.styled(line, style: style) + "\n"
            }
            if let sentence = result.sentence, let similarity = result.similarity {
                let shown = SearchOutput.wrap(sanitized(sentence), width: max(width - 26, 30), maxLines: 1).first ?? ""
                out +=
                    "    " + style.dim(String(format: "nearest in meaning (%.2f): ", similarity))
                    + "\u{201C}\(shown)\u{201D}\n"
            } else if let similarity = result.similarity {
                out += "    " + style.dim(String(format: "similarity in meaning: %.2f", similarity)) + "\n"
            }
            // A reason may quote a situation written for the comic: data, so sanitized.
            if !result.liftedBy.isEmpty {
                out += "    " + style.dim(sanitized(result.liftedBy.joined(separator: "; "))) + "\n"
            }
            out += "\n"
        }
        return out
    }
}
