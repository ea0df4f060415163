// swift-tools-version:6.0
import PackageDescription
let package = Package(name: "app", dependencies: [.package(path: "../grdb-src")],
  targets: [.executableTarget(name: "app", dependencies: [.product(name: "GRDB", package: "grdb-src")])])
