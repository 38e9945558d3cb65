// swift-tools-version:6.1
import PackageDescription

// Benchmarks live in their own package so that their baselines never enter the product's build.
let package = Package(
    name: "cumulus-bench",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "cumulus", path: ".."),
    ],
    targets: [
        .systemLibrary(name: "RawSQLite", path: "Sources/RawSQLite", pkgConfig: "sqlite3"),
        .executableTarget(
            name: "StoreBench",
            dependencies: [.product(name: "CloudStore", package: "cumulus"), "RawSQLite"],
            path: "Sources/StoreBench"
        ),
    ]
)
