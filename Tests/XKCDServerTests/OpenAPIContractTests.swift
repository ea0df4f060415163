import Foundation
import Testing
import XKCDKit

/// openapi.json states the request types' defaults and limits (XKCDKit/Requests): a limit changed
/// in one place and not in the other fails here.
@Suite struct OpenAPIContractTests {
    /// The document as written in the source tree (the server serves it as compiled in); read
    /// once and never changed, so shared unguarded.
    nonisolated(unsafe) static let document: [String: Any] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/XKCDServer/Resources/openapi.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }()

    /// The schema of a query parameter of an operation, its references followed.
    func schema(_ path: String, _ method: String, parameter name: String) throws -> [String: Any] {
        let paths = try #require(Self.document["paths"] as? [String: Any])
        let operation = try #require((paths[path] as? [String: Any])?[method] as? [String: Any])
        let parameters = try #require(operation["parameters"] as? [[String: Any]]).map(resolved)
        let parameter = try #require(parameters.first { $0["name"] as? String == name }, "\(path) \(name)")
        return resolved(try #require(parameter["schema"] as? [String: Any]))
    }

    /// `value` with a `$ref` replaced by what it names.
    func resolved(_ value: [String: Any]) -> [String: Any] {
        guard let reference = value["$ref"] as? String else { return value }
        var node: Any = Self.document
        for part in reference.dropFirst(2).split(separator: "/") {
            node = (node as? [String: Any])?[String(part)] ?? [:]
        }
        return node as? [String: Any] ?? [:]
    }

    func integer(_ schema: [String: Any], _ key: String) -> Int? {
        (schema[key] as? NSNumber)?.intValue
    }

    @Test func searchStatesTheSearchRequestsRules() throws {
        let limit = try schema("/api/search", "get", parameter: "limit")
        #expect(integer(limit, "default") == SearchRequest.defaultLimit)
        #expect(integer(limit, "minimum") == SearchRequest.limits.lowerBound)
        #expect(integer(limit, "maximum") == SearchRequest.limits.upperBound)
        let page = try schema("/api/search", "get", parameter: "page")
        #expect(integer(page, "minimum") == SearchRequest.pages.lowerBound)
        #expect(integer(page, "maximum") == SearchRequest.pages.upperBound)
        #expect(integer(page, "default") == 1)
        #expect(integer(try schema("/api/search", "get", parameter: "q"), "minLength") == 1)
        let exact = try schema("/api/search", "get", parameter: "exact")
        #expect(Set(exact["enum"] as? [String] ?? []) == ["", "0", "1", "true", "false"])
    }

    @Test func relevantStatesTheRelevantRequestsRules() throws {
        let limit = try schema("/api/relevant", "post", parameter: "limit")
        // The API gives a page of ten unless told, as a search (``RelevantRequest/init(passage:reading:)``).
        #expect(integer(limit, "default") == SearchRequest.defaultLimit)
        #expect(integer(limit, "minimum") == RelevantRequest.limits.lowerBound)
        #expect(integer(limit, "maximum") == RelevantRequest.limits.upperBound)
        let schemas = try #require((Self.document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let passage = try #require(schemas["Passage"] as? [String: Any])
        let text = try #require((passage["properties"] as? [String: Any])?["text"] as? [String: Any])
        // "65,536": the document's way of writing a number of bytes.
        var digits = Array(String(RelevantRequest.maximumLength))
        for index in stride(from: digits.count - 3, to: 0, by: -3) { digits.insert(",", at: index) }
        let limitInWords = String(digits)
        #expect((text["description"] as? String)?.contains(limitInWords) == true, "\(limitInWords)")
    }

    @Test func favouritesStateTheTagRules() throws {
        let schemas = try #require((Self.document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let tag = try #require(schemas["Tag"] as? [String: Any])
        #expect(try schema("/api/favourites", "get", parameter: "tag") as NSDictionary == tag as NSDictionary)
        let tags = try #require(schemas["Tags"] as? [String: Any])
        let items = try #require(
            ((tags["properties"] as? [String: Any])?["tags"] as? [String: Any])?["items"] as? [String: Any])
        #expect(resolved(items) as NSDictionary == tag as NSDictionary)
        #expect(integer(tag, "maxLength") == Library.maximumTagLengthAsSent)
        #expect((tag["pattern"] as? String)?.contains("{1,\(Library.maximumTagLength)}") == true)
    }
}
