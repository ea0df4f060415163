import Foundation

/// The one JSON convention of every command's `--json` (README.md, "JSON"): one line, keys
/// sorted, slashes as they are, every documented key present (`null` for a missing value), and
/// the controls JSONEncoder leaves as they are escaped (``Terminal/escapingControls(inJSON:)``).
/// One line a document, so that `jq`, `grep` and a loop over lines read it as it comes.
public enum JSONOutput {
    public static func line(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: Terminal.escapingControls(inJSON: try encoder.encode(value)), as: UTF8.self)
    }

    /// Prints ``line(_:)`` on standard output.
    public static func print(_ value: some Encodable) throws {
        Swift.print(try line(value))
    }

    /// Seconds rounded to hundredths: what a person or a script compares; the rest is noise.
    public static func rounded(seconds: Double) -> Double {
        (seconds * 100).rounded() / 100
    }
}

/// A value written as `null` when missing: the encoder Swift writes for a type leaves a nil
/// optional out, and the convention is that every documented key is there.
@propertyWrapper
public struct NullWhenMissing<Value: Encodable>: Encodable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}
