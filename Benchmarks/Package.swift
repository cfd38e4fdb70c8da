// swift-tools-version: 6.1
import PackageDescription

// Standalone benchmark package for AttestGuard. Build and run it with `./Benchmarks/run.sh`
// (release mode, pinned to one core). It has its own build directory, Benchmarks/.build.
let package = Package(
    name: "AttestGuardBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "AttestBench",
            dependencies: [
                .product(name: "AttestCore", package: "main"),
                .product(name: "AppleReceipts", package: "main"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
