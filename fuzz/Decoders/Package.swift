// swift-tools-version:6.1
import PackageDescription

/// A libFuzzer target that sends arbitrary bodies through the CloudKit Web Services API in
/// process: the real decoders, CloudStore and a real SQLite file. A package of its own so that
/// the fuzzer's build flags never touch the product's build. Built by fuzz/run-decoders.sh.
let package = Package(
    name: "cumulus-decoder-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "cumulus", path: "../..")],
    targets: [
        // SwiftPM gives an executable its own entry point, so the program starts libFuzzer
        // itself (LLVMFuzzerRunDriver) rather than linking libFuzzer's main.
        .target(name: "FuzzerDriver"),
        .executableTarget(
            name: "DecoderFuzz",
            dependencies: [
                "FuzzerDriver",
                .product(name: "CloudStore", package: "cumulus"),
                .product(name: "WebServices", package: "cumulus"),
                .product(name: "HTTPServer", package: "cumulus"),
            ]
        ),
    ]
)
