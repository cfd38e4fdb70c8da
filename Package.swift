// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "AttestGuard",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AttestCore", targets: ["AttestCore"]),
        .library(name: "AppleReceipts", targets: ["AppleReceipts"]),
        .library(name: "AppleSimulator", targets: ["AppleSimulator"]),
        .executable(name: "attestguard", targets: ["attestguard"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        // CMS is SPI in swift-certificates and not semver-stable: pin to the minor version.
        .package(url: "https://github.com/apple/swift-certificates.git", .upToNextMinor(from: "1.21.1")),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "AttestCore",
            dependencies: [
                "AppleReceipts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AppleReceipts",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AppleSimulator",
            dependencies: [
                "AttestCore",
                "AppleReceipts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "attestguard",
            dependencies: [
                "AttestCore",
                "AppleReceipts",
                "AppleSimulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AttestTestSupport",
            dependencies: [
                "AttestCore",
                "AppleReceipts",
                "AppleSimulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tests/AttestTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AttestCoreTests",
            dependencies: ["AttestCore", "AppleSimulator", "AttestTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppleReceiptsTests",
            dependencies: ["AppleReceipts", "AttestCore", "AppleSimulator", "AttestTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppleSimulatorTests",
            dependencies: [
                "AppleSimulator",
                "AttestCore",
                "AppleReceipts",
                "AttestTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "attestguardTests",
            dependencies: [
                "attestguard",
                "AttestTestSupport",
                "AttestCore",
                "AppleSimulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
