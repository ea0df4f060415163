// swift-tools-version:6.1
import PackageDescription

// A nested package keeps package-benchmark out of the main build graph.
let package = Package(
    name: "xkcd-search-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "xkcd-search", path: "../"),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        // What more than one benchmark needs.
        .target(name: "BenchmarkSupport", path: "Support"),
        .executableTarget(
            name: "Relevance",
            dependencies: [
                "BenchmarkSupport", .product(name: "XKCDKit", package: "xkcd-search"),
                .product(name: "XKCDIndexer", package: "xkcd-search"),
                .product(name: "XKCDStore", package: "xkcd-search"),
                .product(name: "XKCDFiles", package: "xkcd-search"),
            ],
            path: "Relevance"
        ),
        .executableTarget(
            name: "StartupFloor",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "StartupFloor"
        ),
        .executableTarget(
            name: "SQLiteFloor",
            dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")],
            path: "SQLiteFloor",
            // SQLite from the static archive, as xkcd-search links it (`make build`).
            linkerSettings: [.unsafeFlags(["-L\(Context.packageDirectory)/../.build/static-libs"])]
        ),
        .executableTarget(
            name: "Parsing",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "XKCDParse", package: "xkcd-search"),
            ],
            path: "Parsing",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Indexing",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "XKCDIndexer", package: "xkcd-search"),
                .product(name: "XKCDKit", package: "xkcd-search"),
                .product(name: "XKCDStore", package: "xkcd-search"),
            ],
            path: "Indexing",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Embed",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "XKCDEmbed", package: "xkcd-search"),
            ],
            path: "Embed",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "EmbedOnce",
            dependencies: [.product(name: "XKCDEmbed", package: "xkcd-search")],
            path: "EmbedOnce"
        ),
        .executableTarget(
            name: "EmbedAgreement",
            dependencies: [.product(name: "XKCDEmbed", package: "xkcd-search")],
            path: "EmbedAgreement"
        ),
        .executableTarget(
            name: "Search",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "XKCDIndexer", package: "xkcd-search"),
                .product(name: "XKCDKit", package: "xkcd-search"),
                .product(name: "XKCDStore", package: "xkcd-search"),
                .product(name: "XKCDFiles", package: "xkcd-search"),
            ],
            path: "Search",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
