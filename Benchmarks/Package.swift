// swift-tools-version: 6.1
import PackageDescription

// Standalone benchmark package for AttestGuard. Build and run it with `./Benchmarks/run.sh`
// (release mode, pinned to one core). It has its own build directory, Benchmarks/.build.
// `./Benchmarks/http.sh` (the HTTP benchmark) also builds the main package's `attestguard` executable product,
// `HTTPBenchPrep` and `BareHealthz` here, in release mode. `./Benchmarks/receipts.sh` (the receipt batch benchmark) builds
// `ReceiptBench`, in release mode too.
let package = Package(
    name: "AttestGuardBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, as in Fuzz/Package.swift: SwiftPM would otherwise name a path dependency after its folder, and
        // the products below would resolve only in a checkout whose folder is called `main`.
        .package(name: "AttestGuard", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        // Also dependencies of the main package (same resolved versions): ReceiptBench uses them directly, AttestBench
        // swift-certificates.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .executableTarget(
            name: "AttestBench",
            dependencies: [
                .product(name: "AttestCore", package: "AttestGuard"),
                .product(name: "AppleReceipts", package: "AttestGuard"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ]
        ),
        // Prepares the HTTP benchmark (Benchmarks/http.sh): attests simulated keys through a running server's API,
        // issues assertion challenges for them and writes valid, single-use assertion request bodies for wrk.
        .executableTarget(
            name: "HTTPBenchPrep",
            dependencies: [
                .product(name: "DeviceSimulator", package: "AttestGuard"),
                .product(name: "AttestCore", package: "AttestGuard"),
                .product(name: "AttestGuardWire", package: "AttestGuard"),
            ]
        ),
        // The reference of Benchmarks/http.sh's GET /healthz: a plain Hummingbird application with that one route, no
        // middleware, whose CPU per request is measured beside the server's in the same run.
        .executableTarget(
            name: "BareHealthz",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // Prints the SQL of the store's hottest statements for Benchmarks/pooler.sh.
        .executableTarget(
            name: "StatementText",
            dependencies: [
                .product(name: "AttestGuardPostgres", package: "AttestGuard"),
            ]
        ),
        // The rule evaluation benchmark (Benchmarks/rules.sh): single-core throughput of RuleSet.evaluate on Rules/.
        .executableTarget(
            name: "RuleBench",
            dependencies: [
                .product(name: "RiskRules", package: "AttestGuard"),
            ]
        ),
        // The receipt batch benchmark (Benchmarks/receipts.sh): prepares N keys due now with ATTEST receipts in
        // PostgreSQL, runs ReceiptRefreshScheduler.runBatch unthrottled against an in-process fake Apple on loopback,
        // and prints receipts redeemed per second, peak and sampled RSS, and (--breakdown) each phase's cost.
        .executableTarget(
            name: "ReceiptBench",
            dependencies: [
                .product(name: "AttestGuardEngine", package: "AttestGuard"),
                .product(name: "AttestGuardStore", package: "AttestGuard"),
                .product(name: "AttestGuardPostgres", package: "AttestGuard"),
                .product(name: "AppleServices", package: "AttestGuard"),
                .product(name: "DeviceSimulator", package: "AttestGuard"),
                .product(name: "FakeApple", package: "AttestGuard"),
                .product(name: "AppleReceipts", package: "AttestGuard"),
                .product(name: "AttestCore", package: "AttestGuard"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
)
