import AttestCore
import AttestGuardEngine
import Configuration
public import Foundation
import Logging
import AttestGuardStorage
import SystemPackage
import AttestVocabulary

/// Reads ``ServerConfiguration`` from a YAML (`.yaml`/`.yml`) or JSON file and `ATTESTGUARD_*` environment
/// variables, the environment winning (`server.port` is overridden by `ATTESTGUARD_SERVER_PORT`).
///
/// Apps and API keys are named maps with a `names` list, because configuration keys cannot be enumerated:
/// ```yaml
/// apps:
///   names: [shop]
///   shop: { appId: ABCDE12345.com.example.shop, environments: [production] }
/// apiKeys:
///   names: [gateway]
///   gateway: { secretFile: /run/secrets/gateway, scopes: [verify], apps: [ABCDE12345.com.example.shop] }
/// ```
public enum ServerConfigurationLoader {
    /// The sample app simulator mode serves when no app is configured.
    public static let sampleAppId = "ABCDE12345.com.example.attestguard"
    /// The API key simulator mode accepts when none is configured (documented; never valid in production).
    public static let simulatorAPIKey = "attestguard-simulator-key"

    /// - Parameters:
    ///   - file: The configuration file; `nil` reads the environment alone (and selects simulator mode).
    ///   - environment: The `ATTESTGUARD_*` overrides and the variables that secrets name.
    ///   - simulatorRoots: Makes the test PKI's roots from `simulator.seed`, called in simulator mode only.
    public static func load(
        file: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        simulatorRoots: SimulatorTrustRoots.Maker
    ) async throws -> ServerConfiguration {
        var providers: [any ConfigProvider] = [
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "attestguard")
        ]
        var fileValues: ConfigValues?
        if let file {
            let provider: any ConfigProvider
            do {
                if file.hasSuffix(".json") {
                    provider = try await FileProvider<JSONSnapshot>(filePath: FilePath(file))
                } else if file.hasSuffix(".yaml") || file.hasSuffix(".yml") {
                    provider = try await FileProvider<YAMLSnapshot>(filePath: FilePath(file))
                } else {
                    throw ConfigurationError(key: "--config", "\(file) must end in .yaml, .yml or .json")
                }
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw ConfigurationError(key: "--config", "cannot read \(file): \(error)")
            }
            providers.append(provider)
            fileValues = ConfigValues(ConfigReader(provider: provider))
        }
        let values = ConfigValues(ConfigReader(providers: providers))
        return try build(values, fileValues: fileValues, environment: environment, simulatorRoots: simulatorRoots)
    }

    static func build(
        _ values: ConfigValues,
        fileValues: ConfigValues?,
        environment: [String: String],
        simulatorRoots: SimulatorTrustRoots.Maker
    ) throws -> ServerConfiguration {
        let mode = try values.choice("mode", default: fileValues == nil ? ServerConfiguration.Mode.simulator : .production)
        let server = values.scoped("server")
        let tls: ServerConfiguration.TLSFiles? =
            if let certificate = server.string("tls.certificateChainPath") {
                ServerConfiguration.TLSFiles(certificateChainPath: certificate, privateKeyPath: try server.requiredString("tls.privateKeyPath"))
            } else { nil }

        let challenges = values.scoped("challenges")
        let trust: EngineSettings.TrustMode
        let seed = values.string("simulator.seed", default: "attestguard-simulator")
        switch mode {
        case .production:
            trust = .production
        case .simulator:
            let roots = try simulatorRoots(seed)
            trust = .simulator(attestationRoots: roots.attestationRoots, receiptRoots: roots.receiptRoots)
        }
        let refresh = try readReceiptRefresh(values.scoped("receipts.refresh"))
        let apple = try readApple(values.scoped("apple"), mode: mode, environment: environment)
        let configuredHashKey = try values.scoped("privacy").secret("hashKey", environment: environment)
        if let configuredHashKey, configuredHashKey.utf8.count < 32 {
            throw ConfigurationError(key: "privacy.hashKeyFile", "the hash key must be at least 32 characters")
        }
        // Simulator mode without a key derives one from the seed; production must configure it (checked below).
        let hashKey = configuredHashKey ?? "attestguard-simulator-hash-key:\(seed)"
        let engine = EngineSettings(
            challengeTTL: .seconds(try challenges.int("ttlSeconds", default: 300, range: 10...86_400)),
            challengeQuota: ChallengeQuota(
                maximumPerUser: try challenges.int("maxPerUser", default: 30, range: 1...1_000_000),
                window: .seconds(try challenges.int("quotaWindowSeconds", default: 300, range: 1...86_400))
            ),
            challengesPerMinutePerAPIKey: try challenges.int("perApiKeyPerMinute", default: 0, range: 0...10_000_000),
            clockSkew: .seconds(try values.int("clockSkewSeconds", default: 120, range: 0...3_600)),
            trust: trust,
            receiptRefresh: refresh.settings,
            velocityKeying: VelocityKeying(secret: Data(hashKey.utf8)),
            decisionLogRetentionDays: try values.scoped("decisionLog").int("retentionDays", default: 30, range: 1...3_650)
        )

        var apps = try readApps(values.scoped("apps"))
        var apiKeys = try readAPIKeys(values.scoped("apiKeys"), environment: environment)
        switch mode {
        case .simulator:
            if apps.isEmpty { apps = [AppPolicy(appId: sampleAppId, environments: [.development])] }
            if apiKeys.isEmpty {
                apiKeys = [APIKey(name: "simulator", secret: simulatorAPIKey, scopes: Set(Scope.allCases), apps: nil)]
            }
        case .production:
            guard !apps.isEmpty else { throw ConfigurationError(key: "apps.names", "production mode needs at least one app") }
            guard !apiKeys.isEmpty else { throw ConfigurationError(key: "apiKeys.names", "production mode needs at least one API key") }
            guard configuredHashKey != nil else {
                throw ConfigurationError(
                    key: "privacy.hashKeyFile",
                    "production needs the key of the keyed hashes of user ids and IPs: privacy.hashKeyFile or privacy.hashKeyEnv (32+ characters, the same on every server)"
                )
            }
        }

        let databaseValues = values.scoped("database")
        if let fileURL = fileValues?.scoped("database").string("url"), URLComponents(string: fileURL)?.password != nil {
            throw ConfigurationError(key: "database.url", "must not carry a password in the file: use database.passwordFile, database.passwordEnv or ATTESTGUARD_DATABASE_URL")
        }
        let database: ServerConfiguration.Database
        if var url = databaseValues.string("url") {
            if let password = try databaseValues.secret("password", environment: environment), var components = URLComponents(string: url) {
                components.password = password
                url = components.string ?? url
            }
            let poolSize = try databaseValues.int("poolSize", default: 16, range: 1...500)
            let keepAliveSeconds = try databaseValues.int("keepAliveSeconds", default: 0, range: 0...86_400)
            database = .postgres(
                ServerConfiguration.Postgres(
                    url: url,
                    poolSize: poolSize,
                    minimumConnections: try databaseValues.int("minimumConnections", default: poolSize, range: 0...poolSize),
                    keepAlive: keepAliveSeconds == 0 ? nil : .seconds(keepAliveSeconds),
                    timeout: .milliseconds(try databaseValues.int("timeoutMilliseconds", default: 5_000, range: 100...600_000))
                )
            )
        } else {
            database = .sqlite(path: databaseValues.string("sqlitePath", default: "attestguard.sqlite"))
        }

        return ServerConfiguration(
            mode: mode,
            host: server.string("host", default: "127.0.0.1"),
            port: try server.int("port", default: 8080, range: 0...65_535),
            tls: tls,
            maxBodyBytes: try server.int("maxBodyBytes", default: 131_072, range: 1_024...16_777_216),
            database: database,
            autoMigrate: try databaseValues.bool("autoMigrate", default: false),
            apps: apps,
            apiKeys: apiKeys,
            engine: engine,
            simulatorSeed: seed,
            apple: apple,
            receiptRefreshEnabled: refresh.enabled,
            logLevel: try values.choice("logLevel", default: Logger.Level.info),
            rulesDirectory: values.scoped("rules").string("directory"),
            shadowRulesDirectory: values.scoped("rules").string("shadowDirectory")
        )
    }

    private static func readApps(_ values: ConfigValues) throws -> [AppPolicy] {
        try values.stringArray("names").map { name in
            let app = values.scoped(name)
            let appId = try app.requiredString("appId")
            guard appId.split(separator: ".").count >= 2, appId.count <= 255 else {
                throw ConfigurationError(key: app.path("appId"), "must be TEAMID.bundle.id, got \(appId)")
            }
            let environmentNames = app.stringArray("environments")
            let environments: [AppAttestEnvironment] = try environmentNames.isEmpty ? [.production] : environmentNames.map { name in
                guard let environment = AppAttestEnvironment(rawValue: name) else {
                    throw ConfigurationError(key: app.path("environments"), "unknown environment \(name) (development or production)")
                }
                return environment
            }
            let hashing: ChallengeHashing =
                switch app.string("attestationClientDataHash", default: "sha256") {
                case "sha256": .sha256
                case "raw": .none
                case let other: throw ConfigurationError(key: app.path("attestationClientDataHash"), "must be sha256 or raw, got \(other)")
                }
            let format: AppPolicy.ClientDataFormat =
                switch app.string("clientDataFormat", default: "v1") {
                case "v1": .v1
                case "legacy": .legacy(challengePointer: try app.requiredString("legacyChallengePointer"))
                case let other: throw ConfigurationError(key: app.path("clientDataFormat"), "must be v1 or legacy, got \(other)")
                }
            return AppPolicy(
                appId: appId,
                environments: Set(environments),
                attestationHashing: hashing,
                clientDataFormat: format,
                mode: try app.choice("mode", default: AppPolicy.Mode.enforce),
                attestationRequiredPercent: try app.int("attestationRequiredPercent", default: 0, range: 0...100),
                onStoreError: try app.choice("onStoreError", default: Decision.review)
            )
        }
    }

    private static func readAPIKeys(_ values: ConfigValues, environment: [String: String]) throws -> [APIKey] {
        try values.stringArray("names").map { name in
            let key = values.scoped(name)
            guard let secret = try key.secret("secret", environment: environment) else {
                throw ConfigurationError(key: key.path("secretFile"), "API key \(name) needs secretFile or secretEnv")
            }
            guard secret.count >= 16 else {
                throw ConfigurationError(key: key.path("secretFile"), "API key \(name) is shorter than 16 characters")
            }
            let scopes = try key.stringArray("scopes").map { scope in
                guard let parsed = Scope(rawValue: scope) else {
                    throw ConfigurationError(key: key.path("scopes"), "unknown scope \(scope)")
                }
                return parsed
            }
            let apps = key.stringArray("apps")
            return APIKey(name: name, secret: secret, scopes: Set(scopes), apps: apps.isEmpty || apps == ["*"] ? nil : Set(apps))
        }
    }
}
