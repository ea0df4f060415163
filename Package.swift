// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "xkcd-search",
    products: [
        .executable(name: "xkcd-search", targets: ["xkcd-search"]),
        .library(name: "XKCDKit", targets: ["XKCDKit"]),
        .library(name: "XKCDIndexer", targets: ["XKCDIndexer"]),
        .library(name: "XKCDParse", targets: ["XKCDParse"]),
        .library(name: "XKCDStore", targets: ["XKCDStore"]),
        .library(name: "XKCDQuery", targets: ["XKCDQuery"]),
        .library(name: "XKCDModel", targets: ["XKCDModel"]),
        .library(name: "XKCDEmbed", targets: ["XKCDEmbed"]),
        .library(name: "XKCDImage", targets: ["XKCDImage"]),
        .library(name: "XKCDFiles", targets: ["XKCDFiles"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", exact: "0.27.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", exact: "2.1.1"),
        // The identify page's upload form without JavaScript (multipart/form-data).
        .package(url: "https://github.com/vapor/multipart-kit", exact: "4.7.1"),
        // Hummingbird brings them; named for the idle timeout (NIOCore's TimeAmount) and the route
        // tests (HTTP field names, byte buffers).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        // libcurl, libxml2 and libchafa are opened with dlopen when first used, not linked
        // (CSharedLibrary; docs/footprint.md): C targets with the libraries' own headers (Debian's
        // -dev packages; their directories as pkg-config names them) and forwarders of the
        // functions the Swift code calls.
        .target(name: "CSharedLibrary"),
        .target(
            name: "CLibXML2", dependencies: ["CSharedLibrary"],
            cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])]
        ),
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // libcurl itself, for the indexer's requests: a size limit that holds while gzip is
        // inflated (FoundationNetworking's URLSession buffers whatever libcurl inflates).
        .target(name: "CCurl", dependencies: ["CSharedLibrary"]),
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
        .target(name: "CChafa", dependencies: ["CSharedLibrary"], cSettings: [.unsafeFlags(chafaIncludes)]),
        // Tesseract and Leptonica, for XKCDOCR only: opened with dlopen when the first image is read.
        .target(name: "CTesseract", dependencies: ["CSharedLibrary"]),
        // stb_image from Debian's libstb-dev, compiled in: no shared library to load.
        .target(name: "CSTBImage", cSettings: [.unsafeFlags(["-O2"])]),
        .target(name: "XKCDModel"),
        // Image bytes in, the words drawn in them out (Tesseract): knows nothing of comics.
        .target(name: "XKCDOCR", dependencies: ["CTesseract", "XKCDImage"]),
        // Where the files go (XDG directories, `--db`), the environment as read, the kept comic
        // images and how the index file is held: what the indexer, the image drawer, the facade
        // and the commands share, with no database.
        .target(name: "XKCDFiles"),
        // Image bytes in, terminal output out: knows nothing of comics or the network. Linked by
        // the drawer's role alone, which opens libchafa.
        .target(
            name: "XKCDImage", dependencies: ["CChafa", "CSTBImage"],
            swiftSettings: [.unsafeFlags(chafaIncludes.flatMap { ["-Xcc", $0] })]),
        // Text to sentence vectors (all-MiniLM-L6-v2): knows nothing of comics or SQLite.
        // Optimised in debug builds too: the encoder's element-wise loops run a hundred times
        // slower unoptimised, and the tests and debug binaries embed real comics with it.
        .target(name: "XKCDEmbed", dependencies: ["CDNNL"], swiftSettings: [.unsafeFlags(["-O"])]),
        .target(
            name: "XKCDFetch",
            dependencies: ["XKCDModel", "CZlib", "CCurl", .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "XKCDParse", dependencies: ["XKCDModel", "CLibXML2"],
            swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]),
        .target(
            name: "XKCDStore",
            dependencies: [
                "XKCDModel", "XKCDSnippets", "XKCDFiles", .product(name: "GRDB", package: "GRDB.swift"),
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
                "XKCDModel", "XKCDStore", "XKCDQuery", "XKCDEmbed", "XKCDFiles", "XKCDOCR", "XKCDImage",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The fetch → parse → store pipeline, which alone links libcurl and libxml2.
        .target(
            name: "XKCDIndexer",
            dependencies: [
                "XKCDModel", "XKCDFetch", "XKCDParse", "XKCDStore", "XKCDEmbed", "XKCDFiles", "XKCDKit", "XKCDImage",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "XKCDREPL", dependencies: ["XKCDKit", "XKCDFiles", "CEditLine"]),
        .target(name: "CPseudoTerminal"),
        // What the roles share: global options, the index command's options, the terminal, starting a
        // child process (ChildProcess, the one way to) and the browser.
        .target(
            name: "XKCDCommandLine",
            dependencies: [
                "XKCDKit", "XKCDEmbed", "XKCDFiles", "CPseudoTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The roles of the one executable other than searching, each run as a process of its
        // own by `xkcd-search` (which starts itself with argv[0] naming the role): the indexer
        // (`xkcd-search-index`), the image drawer (`xkcd-search-image`) and the server
        // (`xkcd-search-serve`). The libraries only they use are opened when they use them.
        .target(
            name: "XKCDIndexCommand",
            dependencies: [
                "XKCDCommandLine", "XKCDIndexer", "XKCDKit", "XKCDEmbed", "XKCDFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "XKCDImageCommand",
            dependencies: [
                "XKCDCommandLine", "XKCDImage", "XKCDFiles", "XKCDKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The HTTP API (`xkcd-search serve`): Hummingbird's only importer.
        .target(
            name: "XKCDServer",
            dependencies: [
                "XKCDKit", "XKCDIndexer", "XKCDImage", "XKCDFiles",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            // The web page's templates, style sheet and script (docs/web.md), and the API's
            // OpenAPI document, compiled in: served as written, with nothing to install.
            resources: [.copy("Web"), .embedInCode("Resources/openapi.json")]
        ),
        .target(
            name: "XKCDServeCommand",
            dependencies: [
                "XKCDCommandLine", "XKCDServer", "XKCDKit", "XKCDFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The one executable: its name (argv[0]) chooses the role (XKCDSearch.swift).
        .executableTarget(
            name: "xkcd-search",
            dependencies: [
                "XKCDCommandLine", "XKCDKit", "XKCDModel", "XKCDFiles", "XKCDREPL", "XKCDIndexCommand",
                "XKCDImageCommand",
                "XKCDServeCommand",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            // `make build` links here to the static archives of SQLite, libedit (with what it
            // needs) and libstdc++, found before the shared libraries: loading and binding those
            // was a sixth of a search process. Without the directory, they link shared.
            linkerSettings: [
                .unsafeFlags(["-L\(Context.packageDirectory)/.build/static-libs"], .when(configuration: .release))
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
        .testTarget(name: "XKCDParseTests", dependencies: ["XKCDParse", "XKCDModel", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDModelTests", dependencies: ["XKCDModel"]),
        .testTarget(name: "XKCDFilesTests", dependencies: ["XKCDFiles", "XKCDModel", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDSnippetsTests", dependencies: ["XKCDSnippets", "CWordScan", "XKCDModel"]),
        .testTarget(
            name: "XKCDIndexerTests",
            dependencies: [
                "XKCDIndexer", "XKCDKit", "XKCDStore", "XKCDFetch", "XKCDFiles", "XKCDModel", "_XKCDTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "XKCDCommandLineTests",
            dependencies: ["XKCDCommandLine", "XKCDKit", "XKCDStore", "XKCDModel", "_XKCDTestSupport"]),
        // The commands run in process: how the command line reads its arguments (CLITests run the
        // built executable).
        .testTarget(
            name: "CommandLineAdapterTests",
            dependencies: [
                "xkcd-search", "XKCDCommandLine", "XKCDREPL", "XKCDModel", "_XKCDTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(name: "XKCDFetchTests", dependencies: ["XKCDFetch", "XKCDModel", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDEmbedTests", dependencies: ["XKCDEmbed", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDImageTests", dependencies: ["XKCDImage", "_XKCDTestSupport"]),
        .testTarget(name: "XKCDQueryTests", dependencies: ["XKCDQuery", "XKCDModel", "_XKCDTestSupport"]),
        .testTarget(
            name: "XKCDStoreTests",
            dependencies: [
                "XKCDStore", "XKCDModel", "XKCDFiles", "XKCDSnippets", "CWordScan", "_XKCDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "XKCDKitTests",
            dependencies: [
                "XKCDKit", "XKCDIndexer", "XKCDStore", "XKCDEmbed", "XKCDFiles", "XKCDQuery", "_XKCDTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "_XKCDTestSupport", "xkcd-search", "XKCDCommandLine", "XKCDModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "XKCDServerTests",
            dependencies: [
                "XKCDServer", "XKCDKit", "XKCDStore", "XKCDIndexer", "XKCDFiles", "XKCDModel", "_XKCDTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "XKCDREPLTests",
            dependencies: ["XKCDREPL", "XKCDKit", "XKCDStore", "XKCDIndexer", "XKCDFiles", "_XKCDTestSupport"]),
    ]
)

// libchafa's headers and GLib's, as `pkg-config --cflags chafa` names them on Debian.
var chafaIncludes: [String] {
    #if arch(arm64)
        let multiarch = "aarch64-linux-gnu"
    #else
        let multiarch = "x86_64-linux-gnu"
    #endif
    return [
        "-I/usr/include/chafa", "-I/usr/lib/\(multiarch)/chafa/include", "-I/usr/include/glib-2.0",
        "-I/usr/lib/\(multiarch)/glib-2.0/include",
    ]
}

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    // Every public type says whether it may cross tasks (as swift-log's manifest asks). An unsafe
    // flag is allowed here: this is the root package, never a dependency.
    settings.append(.unsafeFlags(["-Xfrontend", "-require-explicit-sendable"]))
    target.swiftSettings = settings
}
