import AttestCore
import Crypto
import AttestGuardEngine
import AttestGuardRuntime
import AttestVocabulary
import AttestGuardStore
import AttestGuardPostgres
import Foundation
import AttestTestSupport
import Testing

@Suite("Configuration")
struct ConfigurationTests {
    static let yaml = """
        mode: production
        server: { host: 0.0.0.0, port: 9090 }
        database: { url: "postgres://attestguard@db.internal:5432/attestguard?sslmode=require", passwordEnv: DB_PASSWORD, poolSize: 12 }
        challenges: { ttlSeconds: 120, maxPerUser: 5 }
        apps:
          names: [shop]
          shop: { appId: ABCDE12345.com.example.shop, environments: [production, development], attestationClientDataHash: raw }
        apiKeys:
          names: [gateway]
          gateway: { secretEnv: GATEWAY_KEY, scopes: [verify, score], apps: [ABCDE12345.com.example.shop] }
        privacy: { hashKeyEnv: HASH_KEY }
        """

    func write(_ text: String, suffix: String = ".yaml") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-config-\(UUID().uuidString)\(suffix)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("a YAML file with secrets from the environment, and environment overrides")
    func yamlFile() async throws {
        let environment = [
            "GATEWAY_KEY": "gateway-secret-0123456789", "DB_PASSWORD": "p@ss", "ATTESTGUARD_SERVER_PORT": "9191",
            "HASH_KEY": "a-hash-key-of-at-least-thirty-two-characters",
        ]
        let configuration = try await ServerConfigurationLoader.load(file: try write(Self.yaml), environment: environment)
        #expect(configuration.mode == .production)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9191)
        #expect(configuration.apps.map(\.appId) == ["ABCDE12345.com.example.shop"])
        #expect(configuration.apps.first?.environments == [.production, .development])
        #expect(configuration.apps.first?.attestationHashing == ChallengeHashing.none)
        #expect(configuration.apiKeys.first?.scopes == [.verify, .score])
        #expect(configuration.engine.challengeTTL == .seconds(120))
        guard case .postgres(let postgres) = configuration.database else {
            Issue.record("expected PostgreSQL")
            return
        }
        #expect(postgres.url.contains("p%40ss@db.internal") || postgres.url.contains("p@ss@db.internal"))
        #expect(postgres.poolSize == 12)
        // A warm pool without keep-alive queries unless the file says otherwise: see PostgresStoreConfiguration.
        #expect(postgres.minimumConnections == 12)
        #expect(postgres.keepAlive == nil)
        #expect(!configuration.summary.joined().contains("p@ss"), "the password must not reach the log summary")
        #expect(!configuration.summary.joined().contains("gateway-secret"))
    }

    @Test("the same configuration as JSON")
    func jsonFile() async throws {
        let json = #"{"mode":"simulator","apps":{"names":["a"],"a":{"appId":"ABCDE12345.com.example.a","environments":["development"]}}}"#
        let configuration = try await ServerConfigurationLoader.load(file: try write(json, suffix: ".json"), environment: [:])
        #expect(configuration.mode == .simulator)
        #expect(configuration.apps.map(\.appId) == ["ABCDE12345.com.example.a"])
        #expect(configuration.apiKeys.map(\.name) == ["simulator"])
    }

    @Test("connection bounds: defaults, and each read from server.*")
    func connectionBounds() async throws {
        let defaults = try await ServerConfigurationLoader.load(file: nil, environment: [:]).connections
        #expect(defaults.idleTimeout == .seconds(75) && defaults.headerReadTimeout == .seconds(10) && defaults.bodyReadTimeout == .seconds(10))
        #expect(defaults.maxConnections == 1_024 && defaults.shutdownTimeout == .seconds(10) && defaults.shutdownFlushTimeout == .seconds(5))
        let yaml = """
            mode: simulator
            server: { idleTimeoutSeconds: 1, headerReadTimeoutSeconds: 2, bodyReadTimeoutSeconds: 3, maxConnections: 40,
                      shutdownTimeoutSeconds: 4, shutdownFlushTimeoutSeconds: 0 }
            """
        let read = try await ServerConfigurationLoader.load(file: try write(yaml), environment: [:]).connections
        #expect(read.idleTimeout == .seconds(1) && read.headerReadTimeout == .seconds(2) && read.bodyReadTimeout == .seconds(3))
        #expect(read.maxConnections == 40 && read.shutdownTimeout == .seconds(4) && read.shutdownFlushTimeout == .zero)
    }

    @Test("database.pooler: none unless set; transaction with a URL that has no search_path")
    func pooler() async throws {
        func pooler(_ database: String) async throws -> PostgresPooler? {
            let configuration = try await ServerConfigurationLoader.load(file: try write("mode: simulator\ndatabase: \(database)"), environment: [:])
            guard case .postgres(let postgres) = configuration.database else { return nil }
            return postgres.pooler
        }
        #expect(try await pooler(#"{ url: "postgres://u@h/d" }"#) == PostgresPooler.none)
        #expect(try await pooler(#"{ url: "postgres://u@h/d?sslmode=disable", pooler: transaction }"#) == .transaction)
        // The same URL with its search_path is refused (see `refused`), but without a pooler it selects the schema.
        #expect(try await pooler(#"{ url: "postgres://u@h/d?search_path=s" }"#) == PostgresPooler.none)
    }

    @Test("refused: inline secrets, a password in the file, bad values, production without apps or keys, a shared secret", arguments: [
        ("apiKeys:\n  names: [k]\n  k: { secret: inline-secret-0123456789, scopes: [verify] }\napps:\n  names: [s]\n  s: { appId: A.b }", "apiKeys.k.secret"),
        ("mode: simulator\ndatabase: { url: \"postgres://u:pw@h/d\" }", "database.url"),
        ("mode: simulator\ndatabase: { url: \"postgres://u@h/d\", pooler: session }", "database.pooler"),
        ("mode: simulator\ndatabase: { url: \"postgres://u@h/d?search_path=s\", pooler: transaction }", "database.url"),
        ("mode: simulator\nserver: { port: eighty }", "server.port"),
        ("mode: simulator\nserver: { maxConnections: 0 }", "server.maxConnections"),
        ("mode: simulator\nserver: { headerReadTimeoutSeconds: 0 }", "server.headerReadTimeoutSeconds"),
        ("mode: staging", "mode"),
        ("apps:\n  names: [s]\n  s: { appId: ABCDE12345.com.example.s, environments: [beta] }", "apps.s.environments"),
        ("mode: production", "apps.names"),
        ("mode: simulator\napps:\n  names: [s]\n  s: { appId: ABCDE12345.com.example.s, sessionTokens: { enabled: true } }", "sessionTokens.signingKeyFile"),
        ("mode: simulator\napps:\n  names: [s]\n  s: { appId: ABCDE12345.com.example.s, sessionTokens: { enabled: true, ttlSeconds: 30 } }", "apps.s.sessionTokens.ttlSeconds"),
        ("mode: simulator\nsessionTokens: { verifyingKeyFiles: [/tmp/old.pem] }", "sessionTokens.verifyingKeyFiles"),
        ("mode: simulator\nsessionTokens: { signingKeyEnv: K }", "sessionTokens.signingKeyFile"),
        ("apps:\n  names: [s]\n  s: { appId: ABCDE12345.com.example.s, build: { allowedCategories: { production: [appstore] } } }",
         "apps.s.build.allowedCategories.production"),
        ("apps:\n  names: [s]\n  s: { appId: ABCDE12345.com.example.s, build: { minimumBundleVersion: 4.2b } }", "apps.s.build.minimumBundleVersion"),
        ("mode: production\napps:\n  names: [s]\n  s: { appId: ABCDE12345.com.example.s }", "apiKeys.names"),
        ("mode: production\napps:\n  names: [s]\n  s: { appId: ABCDE12345.com.example.s }\napiKeys:\n  names: [k]\n  k: { secretEnv: K, scopes: [verify] }",
         "privacy.hashKeyFile"),
        // One secret for two keys: the token would pick either key's scopes and apps.
        ("mode: simulator\napiKeys:\n  names: [k, admin]\n  k: { secretEnv: K, scopes: [verify] }\n  admin: { secretEnv: K, scopes: [admin] }",
         "apiKeys.admin.secretFile"),
    ])
    func refused(yaml: String, key: String) async throws {
        do {
            _ = try await ServerConfigurationLoader.load(file: try write(yaml), environment: ["K": "an-api-key-secret-0123456789"])
            Issue.record("accepted: \(yaml)")
        } catch let error as ConfigurationError {
            #expect(error.key == key, "\(error)")
        }
    }
}

@Suite("Configuration: an app's build policy")
struct AppBuildPolicyConfigurationTests {
    @Test("apps.<app>.build sets the categories per environment, the minimum version and the strict mode; nothing set allows all")
    func readsTheBuildPolicy() async throws {
        let yaml = """
            mode: simulator
            apps:
              names: [shop, news]
              shop: { appId: ABCDE12345.com.example.shop, environments: [development, production],
                      build: { allowedCategories: { production: [app_store, test_flight, "unknown(42)"] },
                               minimumBundleVersion: "4.2.0", requireAuthenticatorExtensions: true } }
              news: { appId: ABCDE12345.com.example.news }
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-build-\(UUID().uuidString).yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let apps = try await ServerConfigurationLoader.load(file: file.path, environment: [:]).apps
        let shop = try #require(apps.first { $0.appId == "ABCDE12345.com.example.shop" }).build
        #expect(shop.allowedCategories == [.production: [.appStore, .testFlight, .unknown(42)]])
        #expect(shop.minimumBundleVersion == DottedVersion("4.2"))
        #expect(shop.requiresExtensions)
        let news = try #require(apps.first { $0.appId == "ABCDE12345.com.example.news" }).build
        #expect(news.isUnrestricted)
    }
}

extension AppBuildPolicyConfigurationTests {
    static func load(_ text: String, suffix: String) async throws -> AppBuildPolicy? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-build-\(UUID().uuidString)\(suffix)")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await ServerConfigurationLoader.load(file: file.path, environment: [:]).apps.first?.build
    }

    @Test("a minimum written as a number is refused, never read as 4.1; YAML's unquoted 4.10 is 4.10 or refused")
    func aNumericMinimumIsNotTruncated() async throws {
        let json = #"{"mode":"simulator","apps":{"names":["s"],"s":{"appId":"ABCDE12345.com.example.s","build":{"minimumBundleVersion":4.10}}}}"#
        do {
            _ = try await Self.load(json, suffix: ".json")
            Issue.record("a JSON number was read as a version")
        } catch let error as ConfigurationError {
            #expect(error.key == "apps.s.build.minimumBundleVersion", "\(error)")
        }
        let yaml = "mode: simulator\napps:\n  names: [s]\n  s: { appId: ABCDE12345.com.example.s, build: { minimumBundleVersion: 4.10 } }\n"
        do {
            let build = try await Self.load(yaml, suffix: ".yaml")
            #expect(build?.minimumBundleVersion == DottedVersion("4.10"))
        } catch let error as ConfigurationError {
            #expect(error.key == "apps.s.build.minimumBundleVersion", "\(error)")
        }
    }
}

@Suite("Configuration: session tokens")
struct SessionTokenConfigurationTests {
    @Test("the signing key from a variable, an earlier key from a file, and each app's lifetime when enabled")
    func readsKeysAndLifetimes() async throws {
        let signing = P256.Signing.PrivateKey()
        let old = P256.Signing.PrivateKey()
        let oldFile = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-old-\(UUID().uuidString).pem")
        try old.publicKey.pemRepresentation.write(to: oldFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: oldFile) }
        let yaml = """
            mode: simulator
            sessionTokens: { signingKeyEnv: SESSION_KEY, verifyingKeyFiles: [\(oldFile.path)] }
            apps:
              names: [shop, news]
              shop: { appId: ABCDE12345.com.example.shop, sessionTokens: { enabled: true, ttlSeconds: 900 } }
              news: { appId: ABCDE12345.com.example.news, sessionTokens: { ttlSeconds: 900 } }
            """
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-tokens-\(UUID().uuidString).yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        // A variable may carry the PEM with literal \n, as some secret stores write it.
        let pem = signing.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        let configuration = try await ServerConfigurationLoader.load(file: file.path, environment: ["SESSION_KEY": pem])
        let keys = try #require(configuration.engine.sessionTokenKeys)
        #expect(keys.signing.publicKey.rawRepresentation == signing.publicKey.rawRepresentation)
        #expect(keys.verifying.map(\.rawRepresentation) == [old.publicKey.rawRepresentation])
        let lifetimes = Dictionary(uniqueKeysWithValues: configuration.apps.map { ($0.appId, $0.sessionTokenLifetime) })
        #expect(lifetimes["ABCDE12345.com.example.shop"] == 900)
        #expect(lifetimes["ABCDE12345.com.example.news"] == .some(nil), "not enabled: no tokens, whatever the lifetime")
    }
}
