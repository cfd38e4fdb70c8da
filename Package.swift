// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

// On Linux, stand-ins for Apple's DeviceCheck and Security frameworks, so that the client's real App Attest,
// DeviceCheck and Keychain code (behind `#if canImport(DeviceCheck)`) compiles and runs in CI. They exist only when
// the manifest is read on Linux: on Apple platforms a module named DeviceCheck would shadow the SDK's.
#if os(Linux)
let appleFrameworkStubs: [Target.Dependency] = ["DeviceCheck", "SecurityStub"]
let appleFrameworkStubTargets: [Target] = [
    .target(name: "DeviceCheck", path: "Sources/AppleFrameworkStubs/DeviceCheck", swiftSettings: swiftSettings),
    .target(name: "SecurityStub", path: "Sources/AppleFrameworkStubs/SecurityStub", swiftSettings: swiftSettings),
]
#else
let appleFrameworkStubs: [Target.Dependency] = []
let appleFrameworkStubTargets: [Target] = []
#endif

let package = Package(
    name: "AttestGuard",
    platforms: [.macOS(.v15), .iOS(.v14)],
    products: [
        .library(name: "AttestVocabulary", targets: ["AttestVocabulary"]),
        .library(name: "AttestCore", targets: ["AttestCore"]),
        .library(name: "AppleReceipts", targets: ["AppleReceipts"]),
        .library(name: "DeviceSimulator", targets: ["DeviceSimulator"]),
        .library(name: "FakeApple", targets: ["FakeApple"]),
        .library(name: "AppleServices", targets: ["AppleServices"]),
        .library(name: "AttestGuardStore", targets: ["AttestGuardStore"]),
        .library(name: "AttestGuardPostgres", targets: ["AttestGuardPostgres"]),
        .library(name: "AttestGuardSQLite", targets: ["AttestGuardSQLite"]),
        .library(name: "PolicyFiles", targets: ["PolicyFiles"]),
        .library(name: "RiskRules", targets: ["RiskRules"]),
        .library(name: "AttestGuardEngine", targets: ["AttestGuardEngine"]),
        .library(name: "AttestGuardRuntime", targets: ["AttestGuardRuntime"]),
        .library(name: "AttestGuardServer", targets: ["AttestGuardServer"]),
        .library(name: "TrafficSimulator", targets: ["TrafficSimulator"]),
        .library(name: "GatewayPolicy", targets: ["GatewayPolicy"]),
        .library(name: "AttestGuardWire", targets: ["AttestGuardWire"]),
        .library(name: "AttestGuardClient", targets: ["AttestGuardClient"]),
        .library(name: "AttestGuardClientTesting", targets: ["AttestGuardClientTesting"]),
        .executable(name: "attestguard", targets: ["AttestGuardCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["JSON", "YAML"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.29.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // The shared vocabulary at the bottom floor: environments, decisions, endpoints, challenge purposes, key
        // statuses, receipt types, the error-code registry and signal names. No dependencies.
        .target(
            name: "AttestVocabulary",
            swiftSettings: swiftSettings
        ),
        // The app-facing wire: clientData v1 bytes, the App Attest header names, base64, the request-target rule.
        // Foundation only, so that an app's client links it without anything of the server.
        .target(
            name: "AttestGuardWire",
            swiftSettings: swiftSettings
        ),
        // The iOS app's side: App Attest key lifecycle, signed requests, the app-facing routes. Foundation, swift-crypto
        // and the wire module only, so that an app builds nothing of the server.
        .target(
            name: "AttestGuardClient",
            dependencies: [
                "AttestGuardWire",
                .product(name: "Crypto", package: "swift-crypto"),
            ] + appleFrameworkStubs,
            swiftSettings: swiftSettings
        ),
        // The client driven by the software device instead of the Secure Enclave: tests, previews and demos.
        .target(
            name: "AttestGuardClientTesting",
            dependencies: [
                "AttestGuardClient",
                "AttestGuardWire",
                "DeviceSimulator",
                "AttestCore",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AttestCore",
            dependencies: [
                "AttestVocabulary",
                "AttestGuardWire",
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
                "AttestVocabulary",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AppleServices",
            dependencies: [
                "AttestVocabulary",
                "AttestGuardWire",
                "EventLoopConcurrency",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The software device: a seeded test PKI that mirrors Apple's two hierarchies, simulated devices and keys,
        // receipts, and the request bodies an app sends. Crypto and certificates only: no server stack.
        .target(
            name: "DeviceSimulator",
            dependencies: [
                "AttestVocabulary",
                "AttestGuardWire",
                "AttestCore",
                "AppleReceipts",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        // Apple's receipt and DeviceCheck endpoints on loopback (Hummingbird), with scenarios and injected faults.
        .target(
            name: "FakeApple",
            dependencies: [
                "AttestVocabulary",
                "DeviceSimulator",
                "AttestCore",
                "AppleReceipts",
                "AppleServices",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "EventLoopConcurrency",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The store contract: protocols, records and errors, with no database driver.
        .target(
            name: "AttestGuardStore",
            dependencies: [
                "AttestVocabulary",
                "EventLoopConcurrency",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AttestGuardPostgres",
            dependencies: [
                "AttestGuardStore",
                "AttestVocabulary",
                "EventLoopConcurrency",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        .target(
            name: "AttestGuardSQLite",
            dependencies: [
                "AttestGuardStore",
                "AttestVocabulary",
                "EventLoopConcurrency",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        // What rule files and gateway policy files share: the YAML document with node positions, file problems and
        // load failures, bounded reads of a policy directory.
        .target(
            name: "PolicyFiles",
            dependencies: [
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "RiskRules",
            dependencies: [
                "AttestVocabulary",
                "PolicyFiles",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        .target(
            name: "AttestGuardEngine",
            dependencies: [
                "AttestVocabulary",
                "AttestGuardWire",
                "AttestCore",
                "RiskRules",
                "AppleReceipts",
                "AppleServices",
                "AttestGuardStore",
                "EventLoopConcurrency",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The application below HTTP: configuration (one settings type a section, strict reads, the check), the store
        // backend picked and opened, the reloaders, the background services, logging and metrics set-up, the version.
        // The server and the CLI's offline commands build on it; it knows nothing of HTTP.
        .target(
            name: "AttestGuardRuntime",
            dependencies: [
                "AttestVocabulary",
                "GatewayPolicy",
                "RiskRules",
                "AttestGuardEngine",
                "AppleServices",
                "AttestCore",
                "AttestGuardStore",
                "AttestGuardPostgres",
                "AttestGuardSQLite",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["BuildCommit", "EmbedResources"]
        ),
        // HTTP only: the routes (wire to an engine call and back), auth and scopes, the gateway's forward-auth and
        // app-facing routes, the console, and the application assembled from the runtime's parts.
        .target(
            name: "AttestGuardServer",
            dependencies: [
                "AttestVocabulary",
                "AttestGuardWire",
                "AttestGuardRuntime",
                "GatewayPolicy",
                "EventLoopConcurrency",
                "RiskRules",
                "AttestGuardEngine",
                "AppleServices",
                "AttestCore",
                "AppleReceipts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedResources"]
        ),
        // Writes the short hash of the git commit built (nil outside a checkout): `attestguard --version`, `/readyz`
        // and `attestguard_build_info` carry it beside the VERSION file's release.
        .plugin(name: "BuildCommit", capability: .buildTool()),
        // Embeds the files a binary carries (SQL/ migrations, Rules/, OpenAPI/openapi.yaml, Console/, VERSION) as
        // Swift generated in the build folder, never committed; EmbedResourcesTool is its Foundation-only tool.
        .plugin(name: "EmbedResources", capability: .buildTool(), dependencies: ["EmbedResourcesTool"]),
        .executableTarget(name: "EmbedResourcesTool", swiftSettings: swiftSettings),
        // The gateway's route policy: which app owns a request (host, path prefix), what each route asks (an
        // assertion, a score, nothing), request paths normalised for matching, the policy files and their problems.
        .target(
            name: "GatewayPolicy",
            dependencies: [
                "AttestVocabulary",
                "PolicyFiles",
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // Simulated app instances (personas) driving a live server over its public HTTP API: the demo and
        // `simulate traffic`. A client of the wire contract only: no server, engine or store.
        .target(
            name: "TrafficSimulator",
            dependencies: [
                "AttestGuardWire",
                "AttestVocabulary",
                "AttestCore",
                "DeviceSimulator",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "AttestGuardCLI",
            dependencies: [
                "PolicyFiles",
                "AttestGuardWire",
                "AttestVocabulary",
                "AttestGuardRuntime",
                "AttestGuardServer",
                "RiskRules",
                "AppleServices",
                "AttestGuardEngine",
                "AttestGuardStore",
                "AttestGuardPostgres",
                "AttestGuardSQLite",
                "AttestCore",
                "AppleReceipts",
                "DeviceSimulator",
                "FakeApple",
                "TrafficSimulator",
                "GatewayPolicy",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AttestTestSupport",
            dependencies: [
                "AttestGuardRuntime",
                "AttestVocabulary",
                "AttestGuardStore",
                "AttestGuardPostgres",
                "AttestGuardSQLite",
                "AttestGuardEngine",
                "AppleServices",
                "FakeApple",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                "AttestCore",
                "AppleReceipts",
                "DeviceSimulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tests/AttestTestSupport",
            swiftSettings: swiftSettings
        ),
        // The client's lifecycle and retry rules against a scripted server, with the simulator-backed provider.
        .testTarget(
            name: "AttestGuardClientTests",
            dependencies: [
                "AttestGuardClient",
                "AttestGuardClientTesting",
                "AttestGuardWire",
                "AttestVocabulary",
                "DeviceSimulator",
                "AttestCore",
                "AttestTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ] + appleFrameworkStubs,
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EventLoopConcurrencyTests",
            dependencies: ["EventLoopConcurrency", .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "GatewayPolicyTests",
            dependencies: ["GatewayPolicy", "PolicyFiles", "RiskRules", "AttestTestSupport"],
            swiftSettings: swiftSettings
        ),
        // clientData v1 bytes, base64 and the request-target rule, as an app's client and the server share them.
        .testTarget(
            name: "AttestGuardWireTests",
            dependencies: ["AttestGuardWire", "AttestTestSupport"],
            swiftSettings: swiftSettings
        ),
        // The simulator's report logic, and its copy of the rollout bucket held equal to the engine's.
        .testTarget(
            name: "TrafficSimulatorTests",
            dependencies: ["TrafficSimulator", "AttestGuardEngine", "AttestVocabulary"],
            swiftSettings: swiftSettings
        ),
        // Checks of the repository itself (paths, links, module imports, vocabulary literals): it reads files and
        // links only the vocabulary.
        .testTarget(
            name: "RepositoryTests",
            dependencies: ["AttestVocabulary", "AttestTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RiskRulesTests",
            dependencies: ["RiskRules", "AttestVocabulary", "AttestTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AttestCoreTests",
            dependencies: ["AttestVocabulary", "AttestCore", "DeviceSimulator", "AttestTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppleReceiptsTests",
            dependencies: ["AppleReceipts", "AttestCore", "DeviceSimulator", "AttestTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DeviceSimulatorTests",
            dependencies: [
                "AttestVocabulary",
                "DeviceSimulator",
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
            name: "AttestGuardEngineTests",
            dependencies: [
                "AttestVocabulary",
                "AttestGuardEngine",
                "AttestGuardWire",
                "RiskRules",
                "AppleServices",
                "DeviceSimulator",
                "FakeApple",
                "AppleReceipts",
                "AttestCore",
                "AttestGuardStore",
                "AttestGuardPostgres",
                "AttestGuardSQLite",
                "AttestTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AppleServicesTests",
            dependencies: [
                "AttestVocabulary",
                "AppleServices",
                "DeviceSimulator",
                "FakeApple",
                "AttestCore",
                "AppleReceipts",
                "AttestTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AttestGuardStorageTests",
            dependencies: [
                "AttestVocabulary",
                "AttestGuardStore",
                "AttestGuardPostgres",
                "AttestGuardSQLite",
                "EventLoopConcurrency",
                "AttestTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Configuration (reads, the check, the key catalog, the packaged example), log lines: the runtime without HTTP.
        .testTarget(
            name: "AttestGuardRuntimeTests",
            dependencies: [
                "AttestGuardRuntime",
                "AttestGuardEngine",
                "AttestGuardStore",
                "AttestGuardPostgres",
                "AttestGuardSQLite",
                "AttestCore",
                "AppleServices",
                "DeviceSimulator",
                "AttestTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AttestGuardServerTests",
            dependencies: [
                "AttestGuardRuntime",
                "RiskRules",
                "AttestVocabulary",
                "AttestGuardServer",
                "AttestGuardEngine",
                "AppleServices",
                "AttestGuardStore",
                "AttestGuardPostgres",
                "AttestGuardSQLite",
                "AttestCore",
                "DeviceSimulator",
                "FakeApple",
                "AttestTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AttestGuardCLITests",
            dependencies: [
                "AttestGuardRuntime",
                "AttestVocabulary",
                "GatewayPolicy",
                "AttestGuardCLI",
                "AttestGuardClient",
                "AttestGuardClientTesting",
                "AttestTestSupport",
                "AttestGuardStore",
                "AttestGuardPostgres",
                "AttestGuardSQLite",
                "AttestCore",
                "DeviceSimulator",
                "FakeApple",
                "TrafficSimulator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ] + appleFrameworkStubTargets
)
