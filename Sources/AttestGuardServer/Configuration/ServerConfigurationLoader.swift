import AttestCore
import AttestGuardEngine
import Configuration
public import Foundation
import Logging
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
        try await load(file: file, environment: environment, simulatorRoots: simulatorRoots, recorder: nil)
    }

    /// ``load(file:environment:simulatorRoots:)``, telling `recorder` the full path of every key read.
    static func load(
        file: String?,
        environment: [String: String],
        simulatorRoots: SimulatorTrustRoots.Maker,
        recorder: ConfigValues.Recorder?
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
        let values = ConfigValues(ConfigReader(providers: providers), recorder: recorder)
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
        let tls = try ServerConfiguration.TLSFiles(reading: server.scoped("tls"))
        let trust: EngineSettings.TrustMode
        let seed = values.string("simulator.seed", default: "attestguard-simulator")
        switch mode {
        case .production:
            trust = .production
        case .simulator:
            let roots = try simulatorRoots(seed)
            trust = .simulator(attestationRoots: roots.attestationRoots, receiptRoots: roots.receiptRoots)
        }
        let refreshValues = values.scoped("receipts.refresh")
        let receiptRefresh = try ReceiptRefreshSettings(reading: refreshValues)
        let receiptRefreshEnabled = try refreshValues.bool("enabled", default: true)
        let apple = try AppleConfiguration(reading: values.scoped("apple"), mode: mode, environment: environment)
        let configuredHashKey = try values.scoped("privacy").secret("hashKey", environment: environment)
        if let configuredHashKey, configuredHashKey.utf8.count < 32 {
            throw ConfigurationError(key: "privacy.hashKeyFile", "the hash key must be at least 32 characters")
        }
        // Simulator mode without a key derives one from the seed; production must configure it (checked below).
        let hashKey = configuredHashKey ?? "attestguard-simulator-hash-key:\(seed)"
        let engine = try EngineSettings(reading: values, trust: trust, receiptRefresh: receiptRefresh, hashKey: hashKey)

        let appValues = values.scoped("apps")
        var apps = try appValues.stringArray("names").map { try AppPolicy(reading: appValues.scoped($0)) }
        let keyValues = values.scoped("apiKeys")
        var apiKeys = try keyValues.stringArray("names").map {
            try APIKey(name: $0, reading: keyValues.scoped($0), environment: environment)
        }
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
        let database = try ServerConfiguration.Database(
            reading: databaseValues, fileValues: fileValues?.scoped("database"), environment: environment
        )
        let rules = values.scoped("rules")
        var configuration = ServerConfiguration(
            mode: mode,
            host: server.string("host", default: "127.0.0.1"),
            port: try server.int("port", default: 8080, range: 0...65_535),
            tls: tls,
            maxBodyBytes: try server.int("maxBodyBytes", default: 131_072, range: 1_024...16_777_216),
            connections: try ConnectionSettings(reading: server),
            database: database,
            autoMigrate: try databaseValues.bool("autoMigrate", default: false),
            apps: apps,
            apiKeys: apiKeys,
            engine: engine,
            simulatorSeed: seed,
            apple: apple,
            receiptRefreshEnabled: receiptRefreshEnabled,
            logLevel: try values.choice("logLevel", default: Logger.Level.info),
            rulesDirectory: rules.string("directory"),
            shadowRulesDirectory: rules.string("shadowDirectory")
        )
        configuration.gateway = try GatewaySettings(reading: values.scoped("gateway"))
        configuration.logFormat = try values.choice("logFormat", default: LogFormat.text)
        let operatorValues = values.scoped("operator")
        if operatorValues.string("port") != nil {
            configuration.operatorListener = ServerConfiguration.OperatorListener(
                host: operatorValues.string("host", default: configuration.host),
                port: try operatorValues.int("port", default: 0, range: 0...65_535)
            )
        }
        configuration.accessLogSuccessPercent = try values.scoped("accessLog").int("successPercent", default: 100, range: 0...100)
        return configuration
    }
}
