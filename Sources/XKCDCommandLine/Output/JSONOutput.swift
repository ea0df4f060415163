import XKCDKit

/// Prints a document of the one JSON convention (``JSONDocument``), which the HTTP API shares.
public enum JSONOutput: Sendable {
    /// Prints ``JSONDocument/line(_:)`` on standard output.
    public static func print(_ value: some Encodable) throws {
        Swift.print(try JSONDocument.line(value))
    }
}
