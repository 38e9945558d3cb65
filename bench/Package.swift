// swift-tools-version:6.1
import PackageDescription

/// Cumulus's benchmarks and their baselines. A package of its own so that these dependencies
/// never enter the product's build.
let package = Package(
    name: "cumulus-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "cumulus", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdHealthz",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .systemLibrary(name: "RawSQLite", path: "Sources/RawSQLite", pkgConfig: "sqlite3"),
        .executableTarget(
            name: "StoreBench",
            dependencies: [.product(name: "CloudStore", package: "cumulus"), "RawSQLite"],
            path: "Sources/StoreBench"
        ),
    ]
)
