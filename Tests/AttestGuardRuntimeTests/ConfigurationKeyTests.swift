@testable import AttestGuardRuntime
import Crypto
import Foundation
import AttestTestSupport
import Testing

/// `ConfigurationKey.all` is the one list of the keys the server reads: loading configurations that use every
/// key reads exactly the listed keys, no other.
@Suite("Configuration: the list of keys")
struct ConfigurationKeyTests {
    /// A new file in a folder of its own under the temporary directory, which `removeFiles()` deletes.
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-keys-\(UUID().uuidString)")
    /// A signing secret in Standard Webhooks' form.
    static let webhookSecret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()

    static func file(_ text: String, suffix: String = ".yaml") throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("\(UUID().uuidString)\(suffix)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func removeFiles() { try? FileManager.default.removeItem(at: folder) }

    /// The full paths a load of `yaml` reads, and those of them read as lists.
    static func keysRead(_ yaml: String, environment: [String: String] = [:]) async throws -> (all: Set<String>, lists: Set<String>) {
        let recorder = ConfigValues.Recorder()
        let file = try file(yaml)
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try await ServerConfigurationLoader.load(
            file: file, environment: environment, simulatorRoots: SimulatorTrustRoots.deviceSimulator, recorder: recorder
        )
        return (recorder.pathsRead, recorder.listPathsRead)
    }

    @Test("configurations that use every key read exactly the listed keys")
    func everyKeyIsListedAndRead() async throws {
        defer { Self.removeFiles() }
        let secret = try Self.file("a-secret-of-at-least-thirty-two-characters")
        let p8 = try Self.file(P256.Signing.PrivateKey().pemRepresentation)
        let webhookSecret = try Self.file(Self.webhookSecret)
        let everythingByFile = """
            mode: simulator
            logLevel: debug
            logFormat: json
            accessLog: { successPercent: 10 }
            operator: { host: 10.0.0.1, port: 9090 }
            clockSkewSeconds: 60
            simulator: { seed: keys-test }
            server: { host: 127.0.0.1, port: 8081, maxBodyBytes: 4096, idleTimeoutSeconds: 90, headerReadTimeoutSeconds: 5, bodyReadTimeoutSeconds: 6,
                      maxConnections: 100, shutdownTimeoutSeconds: 3, shutdownFlushTimeoutSeconds: 2,
                      tls: { certificateChainPath: /tls/chain.pem, privateKeyPath: /tls/key.pem } }
            database: { url: "postgres://attestguard@127.0.0.1:5432/attestguard", passwordFile: \(secret), poolSize: 4,
                        minimumConnections: 2, keepAliveSeconds: 30, timeoutMilliseconds: 1000, autoMigrate: true, pooler: transaction,
                        readUrl: "postgres://attestguard@127.0.0.1:5433/attestguard", readPoolSize: 2, readMaxLagSeconds: 10 }
            challenges: { ttlSeconds: 60, maxPerUser: 3, quotaWindowSeconds: 60, perApiKeyPerMinute: 10 }
            apps:
              names: [shop]
              policyReloadSeconds: 10
              shop: { appId: ABCDE12345.com.example.shop, environments: [development], attestationClientDataHash: raw,
                      clientDataFormat: legacy, legacyChallengePointer: /challenge, mode: monitor, attestationRequiredPercent: 5,
                      onStoreError: deny,
                      build: { allowedCategories: { production: [app_store, test_flight], development: [development] },
                               minimumBundleVersion: "4.2", requireAuthenticatorExtensions: true },
                      ramp: { enabled: true, startPercent: 2, factor: 3, periodSeconds: 3600, minimumSuccessRate: 0.9,
                              maximumRateLimitedShare: 0.1, minimumAttempts: 50 } }
            apple:
              teamId: ABCDE12345
              keyId: KEY1234567
              privateKeyFile: \(p8)
              requestTimeoutMilliseconds: 2000
              hosts: { receiptsDevelopment: "http://127.0.0.1:8090", receiptsProduction: "http://127.0.0.1:8090",
                       deviceCheckDevelopment: "http://127.0.0.1:8091", deviceCheckProduction: "http://127.0.0.1:8091" }
            receipts:
              refresh: { enabled: false, firstRedemptionDelaySeconds: 5, intervalHours: 12, concurrency: 8, leaseBatchSize: 16,
                         leaseSeconds: 30, maxAttempts: 3, productionRequestsPerSecond: 10, developmentRequestsPerSecond: 5, pollSeconds: 2,
                         dormantAfterDays: 14 }
            rules: { directory: /rules, shadowDirectory: /candidate }
            decisionLog: { retentionDays: 7 }
            privacy: { hashKeyFile: \(secret) }
            console: { sessionSecretFile: \(secret), sessionMinutes: 30 }
            apiKeys:
              names: [gateway]
              gateway: { secretFile: \(secret), scopes: [verify], apps: ["*"] }
            webhooks:
              names: [support]
              support: { url: "https://support.example.com/hooks", secretFile: \(webhookSecret), events: [key.revoked], apps: ["*"] }
            """
        let byEnvironment = """
            mode: production
            database: { sqlitePath: /tmp/attestguard-keys.sqlite }
            apps: { names: [shop], shop: { appId: ABCDE12345.com.example.shop } }
            apple: { teamId: ABCDE12345, keyId: KEY1234567, privateKeyEnv: APPLE_P8 }
            privacy: { hashKeyEnv: HASH_KEY }
            apiKeys: { names: [gateway], gateway: { secretEnv: GATEWAY_KEY, scopes: [score] } }
            webhooks: { names: [support], support: { url: "http://127.0.0.1:9000/", secretEnv: WEBHOOK_SECRET } }
            """
        let passwordByEnvironment = """
            mode: simulator
            database: { url: "postgres://attestguard@127.0.0.1:5432/attestguard", passwordEnv: DB_PASSWORD }
            """
        let environment = [
            "APPLE_P8": P256.Signing.PrivateKey().pemRepresentation, "HASH_KEY": "a-hash-key-of-at-least-thirty-two-characters",
            "GATEWAY_KEY": "gateway-secret-0123456789", "DB_PASSWORD": "p@ss", "WEBHOOK_SECRET": Self.webhookSecret,
        ]
        var read: Set<String> = []
        var lists: Set<String> = []
        for (yaml, environment) in [(everythingByFile, [:]), (byEnvironment, environment), (passwordByEnvironment, environment)] {
            let keys = try await Self.keysRead(yaml, environment: environment)
            read.formUnion(keys.all)
            lists.formUnion(keys.lists)
        }

        let listed = ConfigurationKey.all
        #expect(Set(listed.map(\.path)).count == listed.count, "a key is listed twice")
        for path in read.sorted() where !listed.contains(where: { $0.matches(path) }) {
            Issue.record("the server reads \(path), which ConfigurationKey.all does not list")
        }
        for key in listed where !read.contains(where: { key.matches($0) }) {
            Issue.record("ConfigurationKey.all lists \(key.path), which no load read")
        }
        for key in listed where key.isList != lists.contains(where: { key.matches($0) }) {
            Issue.record("ConfigurationKey.all says \(key.path) is\(key.isList ? "" : " not") a list, and the server reads it \(key.isList ? "as one value" : "as a list")")
        }
    }

    @Test("every key's environment variable is the one swift-configuration reads for it")
    func environmentVariableNames() async throws {
        for key in ConfigurationKey.all {
            for path in key.concretePaths(apps: ["shop"], apiKeys: ["edge"], webhooks: ["support"]) {
                let variable = ConfigurationKey.environmentVariable(forPath: path)
                let sources = try await ServerConfigurationLoader.Sources(file: nil, environment: [variable: "x"], recorder: nil, problems: nil)
                #expect(sources.values.string(path) == "x", "\(path): \(variable) is not read")
            }
        }
        #expect(ConfigurationKey.environmentVariable(forPath: "velocity.ipv6PrefixLength") == "ATTESTGUARD_VELOCITY_IPV6PREFIX_LENGTH")
        #expect(ConfigurationKey.environmentVariable(forPath: "apps.shop-eu.appId") == "ATTESTGUARD_APPS_SHOP_EU_APP_ID")
    }

    @Test("a key's environment variable overrides it")
    func environmentVariables() async throws {
        let port = try #require(ConfigurationKey.all.first { $0.path == "server.port" })
        let bodyLimit = try #require(ConfigurationKey.all.first { $0.path == "server.maxBodyBytes" })
        let appId = try #require(ConfigurationKey.all.first { $0.path == "apps.<app>.appId" })
        #expect(port.environmentVariable == "ATTESTGUARD_SERVER_PORT")
        #expect(bodyLimit.environmentVariable == "ATTESTGUARD_SERVER_MAX_BODY_BYTES")
        #expect(appId.environmentVariable == "ATTESTGUARD_APPS_<APP>_APP_ID")
        let configuration = try await ServerConfigurationLoader.load(
            file: nil, environment: [port.environmentVariable: "9099", bodyLimit.environmentVariable: "2048"]
        )
        #expect(configuration.port == 9099 && configuration.maxBodyBytes == 2048)
    }

    @Test("a pattern matches one name per placeholder, segment by segment")
    func matching() throws {
        let appId = try #require(ConfigurationKey.all.first { $0.path == "apps.<app>.appId" })
        #expect(appId.matches("apps.shop.appId"))
        #expect(!appId.matches("apps.shop.extra.appId") && !appId.matches("apps.appId") && !appId.matches("apps.shop.mode"))
    }
}
