// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "xkcd-search",
    products: [
        .executable(name: "xkcd-search", targets: ["xkcd-search"]),
        .executable(name: "xkcd-search-index", targets: ["xkcd-search-index"]),
        .executable(name: "xkcd-search-image", targets: ["xkcd-search-image"]),
        .executable(name: "xkcd-search-serve", targets: ["xkcd-search-serve"]),
        .library(name: "XKCDKit", targets: ["XKCDKit"]),
        .library(name: "XKCDIndexer", targets: ["XKCDIndexer"]),
        .library(name: "XKCDParse", targets: ["XKCDParse"]),
        .library(name: "XKCDStore", targets: ["XKCDStore"]),
        .library(name: "XKCDQuery", targets: ["XKCDQuery"]),
        .library(name: "XKCDModel", targets: ["XKCDModel"]),
        .library(name: "XKCDEmbed", targets: ["XKCDEmbed"]),
        .library(name: "XKCDImage", targets: ["XKCDImage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", exact: "2.1.1"),
        // Hummingbird brings them; named for the idle timeout (NIOCore's TimeAmount) and the route
        // tests (HTTP field names, byte buffers).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libcurl itself, for the indexer's requests: a size limit that holds while gzip is
        // inflated (FoundationNetworking's URLSession buffers whatever libcurl inflates).
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // No pkg-config: its `-L/usr/lib/<arch>` would come first in the link's library path,
        // ahead of the static archives `make build` links the release from (see the Makefile).
        .systemLibrary(
            name: "CEditLine",
            providers: [.apt(["libedit-dev"])]
        ),
        // Matrix products for XKCDEmbed, its only importer (docs/semantic-search.md: oneDNN
        // against OpenBLAS, BLIS and libxsmm). libdnnl-dev's header; the library itself is opened
        // with dlopen on the first embedding, so a search that never embeds does not load it.
        .target(name: "CDNNL"),
        // Images to terminal output, for XKCDImage only (docs/images.md).
        .systemLibrary(
            name: "CChafa",
            pkgConfig: "chafa",
            providers: [.apt(["libchafa-dev"])]
        ),
        // stb_image from Debian's libstb-dev, compiled in: no shared library to load.
        .target(name: "CSTBImage", cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "XKCDModel"),
        // Image bytes in, terminal output out: knows nothing of comics or the network. Linked by
        // xkcd-search-image alone, so that nothing of it loads with a search.
        .target(name: "XKCDImage", dependencies: ["CChafa", "CSTBImage"]),
        // Text to sentence vectors (all-MiniLM-L6-v2): knows nothing of comics or SQLite.
        // Optimised in debug builds too: the encoder's element-wise loops run a hundred times
        // slower unoptimised, and the tests and debug binaries embed real comics with it.
        .target(name: "XKCDEmbed", dependencies: ["CDNNL"], swiftSettings: [.unsafeFlags(["-O"])]),
        .target(
            name: "XKCDFetch",
            dependencies: ["XKCDModel", "CZlib", "CCurl", .product(name: "Logging", package: "swift-log")]
        ),
        .target(name: "XKCDParse", dependencies: ["XKCDModel", "CLibXML2"]),
        .target(
            name: "XKCDStore",
            dependencies: [
                "XKCDModel", "XKCDSnippets", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // Snippets of a field's text around the query's words: no database, bytes in, bytes out.
        .target(name: "XKCDSnippets", dependencies: ["CWordScan"]),
        // Sixteen bytes of a snippet's text classified at once (SSE2), inlined into XKCDSnippets.
        .target(name: "CWordScan"),
        .target(name: "XKCDQuery", dependencies: ["XKCDModel"]),
        // Searching, browsing and favourites. No fetching or HTML parsing: every library linked
        // into a process costs start-up time, and `search` is run once per query.
        .target(
            name: "XKCDKit",
            dependencies: [
                "XKCDModel", "XKCDStore", "XKCDQuery", "XKCDEmbed", .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The fetch → parse → store pipeline, which alone links libcurl and libxml2.
        .target(
            name: "XKCDIndexer",
            dependencies: [
                "XKCDModel", "XKCDFetch", "XKCDParse", "XKCDStore", "XKCDEmbed", "XKCDKit",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "XKCDREPL", dependencies: ["XKCDKit", "CEditLine"]),
        .target(name: "CPseudoTerminal"),
        // What the executables share: global options, the index command's options, the terminal.
        .target(
            name: "XKCDCommandLine",
            dependencies: [
                "XKCDKit", "XKCDEmbed", "CPseudoTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "xkcd-search",
            dependencies: [
                "XKCDCommandLine", "XKCDKit", "XKCDModel", "XKCDREPL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // `make build` links here to the static archives of SQLite, libedit (with what it
            // needs) and libstdc++, found before the shared libraries: loading and binding those
            // was a sixth of a search process. Without the directory, they link shared.
            linkerSettings: [.unsafeFlags(["-L\(Context.packageDirectory)/.build/static-libs"], .when(configuration: .release))]
        ),
        // `xkcd-search index` runs this executable, found beside `xkcd-search`.
        .executableTarget(
            name: "xkcd-search-index",
            dependencies: [
                "XKCDCommandLine", "XKCDIndexer", "XKCDKit", "XKCDEmbed",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `show` runs this executable, found beside `xkcd-search`, to draw a kept image: it links
        // the image code, which searches must not load, and not the network stack, which made
        // xkcd-search-index take 14 ms to start (docs/images.md).
        .executableTarget(
            name: "xkcd-search-image",
            dependencies: [
                "XKCDCommandLine", "XKCDImage", "XKCDKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [.unsafeFlags(["-L\(Context.packageDirectory)/.build/static-libs"], .when(configuration: .release))]
        ),
        // The HTTP API (`xkcd-search serve`): Hummingbird's only importer.
        .target(
            name: "XKCDServer",
            dependencies: [
                "XKCDKit", "XKCDIndexer", "XKCDImage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            // The web page's templates, style sheet and script (docs/web.md), and the API's
            // OpenAPI document, compiled in: served as written, with nothing to install.
            resources: [.copy("Web"), .embedInCode("Resources/openapi.json")]
        ),
        // `xkcd-search serve` runs this executable, found beside `xkcd-search`: Hummingbird and
        // SwiftNIO are loaded by the server alone, never by a one-shot search.
        .executableTarget(
            name: "xkcd-search-serve",
            dependencies: [
                "XKCDCommandLine", "XKCDServer", "XKCDKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What the test targets share (fixtures, the fixture HTTP server, waiting for events): a
        // target, not a product, as swift-format's _SwiftFormatTestSupport.
        .target(
            name: "_XKCDTestSupport",
            dependencies: [
                "XKCDModel",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ],
            path: "Tests/_XKCDTestSupport",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "XKCDParseTests", dependencies: ["XKCDParse", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDFetchTests", dependencies: ["XKCDFetch", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDEmbedTests", dependencies: ["XKCDEmbed", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDImageTests", dependencies: ["XKCDImage", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDQueryTests", dependencies: ["XKCDQuery", "XKCDModel", "_XKCDTestSupport"]),
        .testTarget(
            name: "XKCDStoreTests",
            dependencies: ["XKCDStore", "XKCDSnippets", "CWordScan", "_XKCDTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(
            name: "XKCDKitTests",
            dependencies: [
                "XKCDKit", "XKCDIndexer", "XKCDStore", "XKCDEmbed", "_XKCDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "_XKCDTestSupport", "xkcd-search", "XKCDCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "XKCDServerTests",
            dependencies: [
                "XKCDServer", "XKCDKit", "XKCDIndexer", "_XKCDTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "XKCDREPLTests", dependencies: ["XKCDREPL", "XKCDKit", "XKCDIndexer", "_XKCDTestSupport"]),
    ]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    // Every public type says whether it may cross tasks (as swift-log's manifest asks). An unsafe
    // flag is allowed here: this is the root package, never a dependency.
    settings.append(.unsafeFlags(["-Xfrontend", "-require-explicit-sendable"]))
    target.swiftSettings = settings
}
