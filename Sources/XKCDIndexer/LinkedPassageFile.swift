import FoundationEssentials
import Glibc
import XKCDModel

/// Reads a file of linked passages (``LinkedPassage``): tab-separated, with a header naming at
/// least the columns `query`, `relevant` and `source`, as Benchmarks/Relevance/situations*.tsv
/// are (`make linked-passages` joins them into one). A row whose `kind` column, when there is
/// one, says `written` is a situation written for the comic (snapshot/written-situations.tsv);
/// the benchmark's own kinds (`situation`, `description`) say what the passage is, and are
/// passages someone linked, as is a row whose kind is empty. Any other kind is refused: it is
/// more likely a column out of place than a kind the ranking could know.
public enum LinkedPassageFile: Sendable {
    /// The largest file read: eight times the one shipped (4.2 MB, most of it the written
    /// situations).
    public static let sizeLimit = 32 << 20

    /// The passages of the file at `path`, in its order.
    ///
    /// - Throws: ``IndexError/linkedPassages(_:)`` when the file can't be read, is too large, has
    ///   no such header, or a row has no comic number, no passage or a kind of no known name.
    public static func read(_ path: String) throws(IndexError) -> [LinkedPassage] {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .linkedPassages(String(cString: strerror(errno)).lowercased()) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .linkedPassages("it is not a regular file") }
        guard status.st_size <= sizeLimit else { throw .linkedPassages("it is larger than \(sizeLimit >> 20) MB") }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .linkedPassages("it can't be read")
        }
        return try passages(in: String(decoding: data, as: UTF8.self))
    }

    /// The passages of a file's text.
    static func passages(in text: String) throws(IndexError) -> [LinkedPassage] {
        // A byte order mark before the header is no part of its first name.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).makeIterator()
        let header = (lines.next() ?? "").split(separator: "\t", omittingEmptySubsequences: false).map(trimmed)
        guard let query = header.firstIndex(of: "query"), let relevant = header.firstIndex(of: "relevant"),
            let source = header.firstIndex(of: "source")
        else { throw .linkedPassages("its first line does not name the columns query, relevant and source") }
        let kind = header.firstIndex(of: "kind")
        var passages: [LinkedPassage] = []
        var lineNumber = 1
        while let line = lines.next() {
            lineNumber += 1
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count > max(query, relevant, source) else {
                throw .linkedPassages("line \(lineNumber) has \(columns.count) columns, not \(header.count)")
            }
            // Several comics may be linked to one passage ("303,1205"): each is one row.
            let comics = columns[relevant].split(separator: ",").map { Comic.ID(trimmed($0)) }
            guard !comics.isEmpty, comics.allSatisfy({ ($0 ?? 0) > 0 }) else {
                throw .linkedPassages("line \(lineNumber) names no comic number in its relevant column")
            }
            let text = plain(columns[query])
            guard !text.isEmpty else { throw .linkedPassages("line \(lineNumber) has no passage") }
            let kindName = kind.map { $0 < columns.count ? trimmed(columns[$0]).lowercased() : "" } ?? ""
            guard Self.kinds.contains(kindName) else {
                throw .linkedPassages("line \(lineNumber) has a kind other than situation, description or written")
            }
            let isWritten = kindName == "written"
            for comic in comics.compactMap({ $0 }) {
                passages.append(
                    LinkedPassage(comic: comic, text: text, source: plain(columns[source]), isWritten: isWritten))
            }
        }
        guard !passages.isEmpty else { throw .linkedPassages("it has no passages") }
        return passages
    }

    /// The kinds a row may name, in lower case: none, the benchmark's two kinds of passages
    /// someone linked, and a situation written for the comic.
    private static let kinds: Set<String> = ["", "situation", "description", "written"]

    /// `text` without control characters, which are no part of what anyone wrote and never
    /// reach a terminal, and without white space around it.
    private static func plain(_ text: Substring) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
        return trimmed(Substring(String(scalars)))
    }

    /// `text` without white space around it.
    private static func trimmed(_ text: Substring) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
