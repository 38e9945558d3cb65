// swift-tools-version:6.1
import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode comes from the tools version;
/// `ExistentialAny` keeps protocol-typed values explicit.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// Debug builds alone (those the tests run) carry the negative controls: switches that break a
/// guarantee on purpose, to show a checker catches it. The shipped release binary has none.
let negativeControls: [SwiftSetting] = [.define("CUMULUS_NEGATIVE_CONTROLS", .when(configuration: .debug))]

let package = Package(
    name: "cumulus",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "cumulus", targets: ["cumulus"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "CloudStore", targets: ["CloudStore"]),
        .library(name: "CloudKitWire", targets: ["CloudKitWire"]),
        .library(name: "WebServices", targets: ["WebServices"]),
        .library(name: "Console", targets: ["Console"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
    ],
    targets: [
        // MARK: - System libraries and the C shim
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(name: "CLinux", path: "Sources/CLinux"),
        .target(name: "CSQLiteSupport", dependencies: ["CSQLite"], path: "Sources/CSQLiteSupport"),

        // MARK: - Modules
        .target(
            name: "HTTPServer",
            dependencies: [
                "CZlib",
                "CLinux",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "CloudStore",
            dependencies: [
                "CLibPQ",
                "CLinux",
                "CSQLite",
                "CSQLiteSupport",
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings + negativeControls
        ),
        .target(
            name: "CloudKitWire",
            dependencies: ["CloudStore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WebServices",
            dependencies: [
                "HTTPServer",
                "CloudStore",
                "CloudKitWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Console",
            dependencies: [
                "HTTPServer",
                "CloudStore",
                "CloudKitWire",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "cumulus",
            dependencies: [
                "HTTPServer",
                "CloudKitWire",
                "CloudStore",
                "WebServices",
                "Console",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings + negativeControls
        ),

        // MARK: - Tests
        .target(
            name: "TestSupport",
            dependencies: ["CloudStore", "CloudKitWire", "CLibPQ", "CSQLite", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "CrashWriter",
            dependencies: ["CloudStore"],
            path: "Tests/CrashWriter",
            swiftSettings: swiftSettings
        ),
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        .executableTarget(
            name: "AllocationProbe",
            dependencies: [
                "AllocationCounter", "CloudStore", "HTTPServer", "WebServices", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/AllocationProbe",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ConsoleFixture",
            dependencies: ["CloudStore"],
            path: "Tests/ConsoleFixture",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CloudStoreTests",
            dependencies: [
                "CloudStore", "CSQLite", "CSQLiteSupport", "CrashWriter", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings + negativeControls
        ),
        .testTarget(
            name: "CloudKitWireTests",
            dependencies: ["CloudKitWire", "CloudStore", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebServicesTests",
            dependencies: [
                "AllocationProbe",
                "WebServices",
                "CloudKitWire",
                "HTTPServer",
                "CloudStore",
                "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ConsoleTests",
            dependencies: [
                "Console", "HTTPServer", "CloudStore", "CloudKitWire", "TestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "CumulusTests",
            dependencies: ["cumulus", "Console", "CloudStore", "TestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
    ]
)
