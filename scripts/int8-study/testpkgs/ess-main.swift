import FoundationEssentials
struct Item: Codable { var name: String; var date: Date; var data: Data }
let item = Item(name: CommandLine.arguments.first ?? "x", date: Date(), data: Data([1, 2, 3]))
let json = try JSONEncoder().encode(item)
let back = try JSONDecoder().decode(Item.self, from: json)
print(String(decoding: json, as: UTF8.self), back.name, URL(fileURLWithPath: "/tmp").path, UUID().uuidString)
print(ProcessInfo.processInfo.processorCount, FileManager.default.fileExists(atPath: "/tmp"))
