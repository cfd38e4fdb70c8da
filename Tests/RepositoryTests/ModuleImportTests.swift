import Foundation
import Testing

/// The dependency seams the layout promises, read from the `import` lines of each module's sources: the server
/// never links the simulator, the device simulator carries no server stack, the engine knows nothing of HTTP.
struct ModuleImportTests {
    /// Modules a module's sources must not import.
    static let forbidden: [String: Set<String>] = [
        // HTTP only: routes, the gateway and the console translate the wire to engine calls; the runtime opens the
        // store, and nothing in the server names it.
        "AttestGuardServer": ["DeviceSimulator", "FakeApple", "AttestGuardStore", "AttestGuardPostgres", "AttestGuardSQLite", "PostgresNIO", "SQLiteNIO"],
        // Apple's HTTP services speak the wire (base64), not the verifier.
        "AppleServices": [
            "AttestCore", "AttestGuardEngine", "AttestGuardStore", "AttestGuardPostgres", "AttestGuardSQLite", "AttestGuardRuntime", "AttestGuardServer",
        ],
        // The application below HTTP: configuration, the store opened, reloaders and background services.
        "AttestGuardRuntime": [
            "AttestGuardServer", "Hummingbird", "HummingbirdCore", "HummingbirdTLS", "NIOHTTP1", "HTTPTypes", "Mustache",
            "DeviceSimulator", "FakeApple",
        ],
        // The engine knows the store contract only: the runtime picks the backend.
        "AttestGuardEngine": [
            "DeviceSimulator", "FakeApple", "Hummingbird", "HummingbirdCore", "AttestGuardServer", "AttestGuardPostgres", "AttestGuardSQLite",
            "PostgresNIO", "SQLiteNIO",
        ],
        // The contract names no driver; each backend stands beside the other.
        "AttestGuardStore": ["PostgresNIO", "SQLiteNIO", "AttestGuardPostgres", "AttestGuardSQLite", "AttestGuardEngine"],
        "AttestGuardPostgres": ["SQLiteNIO", "AttestGuardSQLite", "AttestGuardEngine"],
        "AttestGuardSQLite": ["PostgresNIO", "AttestGuardPostgres", "AttestGuardEngine"],
        "DeviceSimulator": [
            "FakeApple", "Hummingbird", "HummingbirdCore", "NIOCore", "NIOPosix", "ServiceLifecycle", "AsyncHTTPClient",
            "AppleServices", "AttestGuardEngine", "AttestGuardStore", "AttestGuardPostgres", "AttestGuardSQLite", "AttestGuardServer",
        ],
        // Route policy is data and matching: the server and the CLI read it, it reads neither.
        // It shares the policy files' machinery with the rule language, not the rule language itself.
        "GatewayPolicy": ["AttestGuardEngine", "AttestGuardStore", "AttestGuardServer", "Hummingbird", "HummingbirdCore", "NIOCore", "RiskRules"],
        // YAML documents, file problems and bounded reads, under both the rule language and the gateway policy.
        "PolicyFiles": ["RiskRules", "GatewayPolicy", "AttestGuardEngine", "AttestGuardStore", "AttestVocabulary"],
        // A client of the wire contract: it learns what the server does only from its answers.
        "TrafficSimulator": [
            "AttestGuardEngine", "AttestGuardStore", "AttestGuardServer", "RiskRules", "FakeApple", "Hummingbird", "HummingbirdCore",
        ],
    ]

    /// What an app's client may import: Foundation, swift-crypto, the wire module and Apple's frameworks (on Linux
    /// their stand-ins).
    static let clientImports: [String: Set<String>] = [
        "AttestGuardClient": ["Foundation", "FoundationNetworking", "Crypto", "AttestGuardWire", "DeviceCheck", "Security", "SecurityStub"],
    ]

    /// Modules that import Foundation and nothing else, and name no dependency: what an app's client links.
    static let foundationOnly = ["AttestGuardWire"]

    /// The CLI's files that may import the server: `serve` runs it, and the label import reads its lines with the
    /// API's strict JSON reading (`JSONBody.decodeStrictly`: duplicate keys, encodings, unread members).
    static let cliFilesImportingTheServer: Set<String> = [
        "Sources/AttestGuardCLI/Server/ServerRuntime.swift",
        "Sources/AttestGuardCLI/Labels/LabelFile.swift",
    ]

    /// The modules a Swift source imports, whatever the access level or attributes written before `import`.
    static func imports(in source: String) -> Set<String> {
        let pattern = /^(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:public\s+|package\s+|internal\s+|fileprivate\s+|private\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)/
            .anchorsMatchLineEndings()
        return Set(source.matches(of: pattern).map { String($0.1) })
    }

    @Test func modulesImportOnlyWhatTheLayoutAllows() throws {
        let files = try RepositoryFiles.tracked()
        for (module, banned) in Self.forbidden {
            let sources = files.filter { $0.hasPrefix("Sources/\(module)/") && $0.hasSuffix(".swift") }
            #expect(!sources.isEmpty, "no sources found for \(module)")
            for source in sources {
                let wrong = Self.imports(in: try RepositoryFiles.text(source)).intersection(banned)
                #expect(wrong.isEmpty, "\(source) imports \(wrong.sorted())")
            }
        }
    }

    @Test func theCLIsOfflineCommandsBuildOnTheRuntimeNotTheServer() throws {
        let sources = try RepositoryFiles.tracked().filter { $0.hasPrefix("Sources/AttestGuardCLI/") && $0.hasSuffix(".swift") }
        #expect(!sources.isEmpty)
        let importing = try Set(sources.filter { Self.imports(in: try RepositoryFiles.text($0)).contains("AttestGuardServer") })
        #expect(importing.subtracting(Self.cliFilesImportingTheServer).isEmpty, "CLI files importing the server: \(importing.subtracting(Self.cliFilesImportingTheServer).sorted())")
        #expect(Self.cliFilesImportingTheServer.subtracting(importing).isEmpty, "no longer import the server (drop them from the list): \(Self.cliFilesImportingTheServer.subtracting(importing).sorted())")
    }

    @Test func theWireModuleStandsAlone() throws {
        let files = try RepositoryFiles.tracked()
        let manifest = try RepositoryFiles.text("Package.swift")
        for module in Self.foundationOnly {
            let sources = files.filter { $0.hasPrefix("Sources/\(module)/") && $0.hasSuffix(".swift") }
            #expect(!sources.isEmpty, "no sources found for \(module)")
            for source in sources {
                let imported = Self.imports(in: try RepositoryFiles.text(source)).subtracting(["Foundation"])
                #expect(imported.isEmpty, "\(source) imports \(imported.sorted())")
            }
            #expect(Self.manifestDependencies(of: module, in: manifest).isEmpty, "Package.swift gives \(module) dependencies")
        }
    }

    @Test func theClientImportsOnlyWhatAnAppLinks() throws {
        let files = try RepositoryFiles.tracked()
        for (module, allowed) in Self.clientImports {
            let sources = files.filter { $0.hasPrefix("Sources/\(module)/") && $0.hasSuffix(".swift") }
            #expect(!sources.isEmpty, "no sources found for \(module)")
            for source in sources {
                let imported = Self.imports(in: try RepositoryFiles.text(source)).subtracting(allowed)
                #expect(imported.isEmpty, "\(source) imports \(imported.sorted())")
            }
        }
    }

    /// The target dependencies `Package.swift` names for `target` (module names in quotes, products by name).
    static func manifestDependencies(of target: String, in manifest: String) -> Set<String> {
        guard let start = manifest.range(of: "\n            name: \"\(target)\",\n            dependencies: [") else { return [] }
        let rest = manifest[start.upperBound...]
        let end = rest.range(of: "\n            ]")?.lowerBound ?? rest.endIndex
        return Set(rest[..<end].matches(of: /"([A-Za-z0-9_-]+)"/).map { String($0.1) })
    }

    @Test func theManifestLinksOnlyWhatTheLayoutAllows() throws {
        let manifest = try RepositoryFiles.text("Package.swift")
        for (module, banned) in Self.forbidden {
            let dependencies = Self.manifestDependencies(of: module, in: manifest)
            #expect(!dependencies.isEmpty, "no dependencies found for \(module) in Package.swift")
            #expect(dependencies.intersection(banned).isEmpty, "Package.swift links \(module) to \(dependencies.intersection(banned).sorted())")
        }
        #expect(manifest.contains("\n            name: \"AttestVocabulary\",\n            swiftSettings:"), "the vocabulary depends on nothing")
    }

    @Test func manifestDependenciesAreRead() {
        let manifest = """
                    .target(
                        name: "AttestGuardServer",
                        dependencies: [
                            "AttestGuardEngine",
                            .product(name: "Hummingbird", package: "hummingbird"),
                        ],
                        swiftSettings: swiftSettings
                    ),
            """
        #expect(Self.manifestDependencies(of: "AttestGuardServer", in: manifest) == ["AttestGuardEngine", "Hummingbird", "hummingbird"])
    }

    @Test func theVocabularyImportsNothing() throws {
        let sources = try RepositoryFiles.tracked().filter { $0.hasPrefix("Sources/AttestVocabulary/") && $0.hasSuffix(".swift") }
        #expect(!sources.isEmpty)
        for source in sources {
            let imported = Self.imports(in: try RepositoryFiles.text(source))
            #expect(imported.isEmpty, "\(source) imports \(imported.sorted()): the vocabulary is the bottom floor")
        }
    }

    @Test func importsAreReadWhateverTheirModifiers() {
        let source = """
            import Foundation
            public import AttestCore
            @testable import AttestGuardEngine
            @_spi(CMS) import X509
            import struct NIOCore.ByteBuffer
            // import Commented
            let text = "import Quoted"
            """
        #expect(Self.imports(in: source) == ["Foundation", "AttestCore", "AttestGuardEngine", "X509", "NIOCore"])
    }
}
