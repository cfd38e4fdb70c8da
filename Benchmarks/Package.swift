// swift-tools-version: 6.1
import PackageDescription

// Standalone benchmark package for AttestGuard. Build and run it with `./Benchmarks/run.sh`
// (release mode, pinned to one core). It has its own build directory, Benchmarks/.build.
// `./Benchmarks/http.sh` (the HTTP benchmark) also builds the main package's `attestguard` executable product
// and `HTTPBenchPrep` here, in release mode.
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
        // Prepares the HTTP benchmark (Benchmarks/http.sh): attests simulated keys through a running server's API,
        // issues assertion challenges for them and writes valid, single-use assertion request bodies for wrk.
        .executableTarget(
            name: "HTTPBenchPrep",
            dependencies: [
                .product(name: "AppleSimulator", package: "main"),
                .product(name: "AttestCore", package: "main"),
            ]
        ),
    ]
)
