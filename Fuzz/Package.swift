// swift-tools-version: 6.1
// libFuzzer harnesses for AttestGuard's parsers. A standalone package: it depends on the main package
// by path and builds in its own Fuzz/.build. Build and run everything with `Fuzz/run.sh` (see README.md):
// the sanitizer flags are passed on the command line (-Xswiftc) so that the main package's modules are
// coverage-instrumented too, which unsafeFlags in this manifest could not do.
import PackageDescription

let fuzzTargets = [
    "FuzzCBOR",
    "FuzzAttestationObject",
    "FuzzAuthenticatorData",
    "FuzzAssertion",
    "FuzzReceiptEnvelope",
    "FuzzReceiptPayload",
    "FuzzTextFormats",
]

let package = Package(
    name: "AttestGuardFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "AttestGuard", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "AttestCore", package: "AttestGuard"),
                .product(name: "AttestGuardWire", package: "AttestGuard"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ] + fuzzTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                "FuzzSupport",
                .product(name: "AttestCore", package: "AttestGuard"),
                .product(name: "AppleReceipts", package: "AttestGuard"),
                .product(name: "AttestGuardWire", package: "AttestGuard"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        )
    }
)
