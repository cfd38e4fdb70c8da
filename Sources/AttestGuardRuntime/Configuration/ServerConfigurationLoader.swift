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

    /// Reads the configuration, throwing the first of the problems ``ConfigurationCheck`` names (which names them
    /// all): a value that does not parse, a missing secret, an unreadable file, a key of the file this version does
    /// not read.
    /// - Parameters:
    ///   - file: The configuration file; `nil` reads the environment alone (and selects simulator mode).
    ///   - environment: The `ATTESTGUARD_*` overrides and the variables that secrets name.
    ///   - simulatorRoots: Makes the test PKI's roots from `simulator.seed`, called in simulator mode only.
    ///   - allowUnknownKeys: Accepts keys of the file this version does not read, as warnings in
    ///     ``ServerConfiguration/warnings``.
    public static func load(
        file: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        simulatorRoots: SimulatorTrustRoots.Maker,
        allowUnknownKeys: Bool = false
    ) async throws -> ServerConfiguration {
        try await load(file: file, environment: environment, simulatorRoots: simulatorRoots, allowUnknownKeys: allowUnknownKeys, recorder: nil)
    }

    /// ``load(file:environment:simulatorRoots:allowUnknownKeys:)``, telling `recorder` the full path of every key read.
    package static func load(
        file: String?,
        environment: [String: String],
        simulatorRoots: SimulatorTrustRoots.Maker,
        allowUnknownKeys: Bool = false,
        recorder: ConfigValues.Recorder?
    ) async throws -> ServerConfiguration {
        let check = try await ConfigurationCheck.run(
            file: file, environment: environment, simulatorRoots: simulatorRoots, allowUnknownKeys: allowUnknownKeys, recorder: recorder
        )
        if let problem = check.problems.first { throw problem }
        guard let configuration = check.configuration else { throw ConfigurationError(key: "--config", "cannot be read") }
        return configuration
    }

    /// Where the values come from: the environment (`ATTESTGUARD_*`, winning) and the file.
    package struct Sources {
        /// The environment's and the file's values.
        let values: ConfigValues
        /// The file's values alone.
        let fileValues: ConfigValues?

        /// Opens `file` (`.yaml`, `.yml` or `.json`).
        /// - Throws: ``ConfigurationError`` when the file cannot be read or parsed.
        init(file: String?, environment: [String: String], recorder: ConfigValues.Recorder?, problems: ConfigValues.Problems?) async throws {
            let prefix = ConfigKey(ConfigurationKey.environmentPrefix.lowercased())
            var providers: [any ConfigProvider] = [EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: prefix)]
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
                    throw ConfigurationError(key: "--config", "cannot read \(file): \(error)", code: .unreadableFile)
                }
                providers.append(provider)
                fileValues = ConfigValues(ConfigReader(provider: provider))
            }
            self.fileValues = fileValues
            values = ConfigValues(ConfigReader(providers: providers), recorder: recorder, problems: problems)
        }
    }

    /// Reads every part of the configuration. With problems collected (``ConfigurationCheck``), a part that fails
    /// is reported and a default stands in for it, so that the parts after it are checked too.
    package static func build(
        _ values: ConfigValues,
        fileValues: ConfigValues?,
        environment: [String: String],
        simulatorRoots: SimulatorTrustRoots.Maker
    ) throws -> ServerConfiguration {
        let mode = try values.choice("mode", default: fileValues == nil ? ServerConfiguration.Mode.simulator : .production)
        let server = values.scoped("server")
        let tls = try values.recovering(nil) { try ServerConfiguration.TLSFiles(reading: server.scoped("tls")) }
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
        let apple = try values.recovering(AppleConfiguration()) {
            try AppleConfiguration(reading: values.scoped("apple"), mode: mode, environment: environment)
        }
        let configuredHashKey = try values.recovering(nil) { try values.scoped("privacy").secret("hashKey", environment: environment) }
        if let configuredHashKey, configuredHashKey.utf8.count < 32 {
            try values.report(ConfigurationError(key: "privacy.hashKeyFile", "the hash key must be at least 32 characters"))
        }
        // Simulator mode without a key derives one from the seed; production must configure it (checked below).
        let hashKey = configuredHashKey ?? "attestguard-simulator-hash-key:\(seed)"
        var engine = try EngineSettings(reading: values, trust: trust, receiptRefresh: receiptRefresh, hashKey: hashKey)
        engine.sessionTokenKeys = try values.recovering(nil) { try SessionTokenKeys.reading(values.scoped("sessionTokens"), environment: environment) }
        engine.revocationRefresh = .seconds(try values.scoped("sessionTokens").int("revocationRefreshSeconds", default: 10, range: 1...300))

        let appValues = values.scoped("apps")
        let appNames = appValues.stringArray("names")
        var apps = try appNames.compactMap { name in try values.recovering(nil) { try AppPolicy(reading: appValues.scoped(name)) } }
        let keyValues = values.scoped("apiKeys")
        let keyNames = keyValues.stringArray("names")
        var apiKeys = try keyNames.compactMap { name in
            try values.recovering(nil) { try APIKey(name: name, reading: keyValues.scoped(name), environment: environment) }
        }
        let webhookValues = values.scoped("webhooks")
        engine.webhooks = try webhookValues.stringArray("names").compactMap { name in
            try values.recovering(nil) {
                try WebhookEndpoint(name: name, reading: webhookValues.scoped(name), environment: environment, apps: apps.map(\.appId))
            }
        }
        // A bearer token names one key: two keys with one secret would give its holder whichever scopes won the lookup.
        var keyNamesBySecret: [Data: String] = [:]
        for key in apiKeys {
            if let first = keyNamesBySecret.updateValue(key.name, forKey: key.secretSHA256) {
                try values.report(ConfigurationError(
                    key: "apiKeys.\(key.name).secretFile", "API keys \(first) and \(key.name) have the same secret: give each key its own", code: .duplicateSecret
                ))
            }
        }
        switch mode {
        case .simulator:
            if apps.isEmpty { apps = [AppPolicy(appId: sampleAppId, environments: [.development])] }
            if apiKeys.isEmpty {
                apiKeys = [APIKey(name: "simulator", secret: simulatorAPIKey, scopes: Set(Scope.allCases), apps: nil)]
            }
        case .production:
            if appNames.isEmpty {
                try values.report(ConfigurationError(key: "apps.names", "production mode needs at least one app", code: .missingValue))
            }
            if keyNames.isEmpty {
                try values.report(ConfigurationError(key: "apiKeys.names", "production mode needs at least one API key", code: .missingValue))
            }
            let privacy = values.scoped("privacy")
            if configuredHashKey == nil, privacy.string("hashKeyFile") == nil, privacy.string("hashKeyEnv") == nil {
                try values.report(ConfigurationError(
                    key: "privacy.hashKeyFile",
                    "production needs the key of the keyed hashes of user ids and IPs: privacy.hashKeyFile or privacy.hashKeyEnv (32+ characters, the same on every server)",
                    code: .missingSecret
                ))
            }
        }

        if engine.sessionTokenKeys == nil, let app = apps.first(where: { $0.sessionTokenLifetime != nil }) {
            try values.report(ConfigurationError(
                key: "sessionTokens.signingKeyFile",
                "app \(app.appId) issues session tokens (apps.<app>.sessionTokens.enabled): the server needs a signing key, sessionTokens.signingKeyFile or sessionTokens.signingKeyEnv",
                code: .missingSecret
            ))
        }

        let databaseValues = values.scoped("database")
        let database = try values.recovering(.sqlite(path: "")) {
            try ServerConfiguration.Database(reading: databaseValues, fileValues: fileValues?.scoped("database"), environment: environment)
        }
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
        configuration.gateway = try values.recovering(GatewaySettings()) { try GatewaySettings(reading: values.scoped("gateway")) }
        configuration.logFormat = try values.choice("logFormat", default: LogFormat.text)
        configuration.sweepRulesDirectory = rules.string("sweepDirectory")
        configuration.ruleHitMetricsLimit = try rules.int("hitMetricsLimit", default: RuleHitCounters.defaultLimit, range: 0...100_000)
        let operatorValues = values.scoped("operator")
        if operatorValues.string("port") != nil {
            configuration.operatorListener = ServerConfiguration.OperatorListener(
                host: operatorValues.string("host", default: configuration.host),
                port: try operatorValues.int("port", default: 0, range: 0...65_535)
            )
        }
        configuration.accessLogSuccessPercent = try values.scoped("accessLog").int("successPercent", default: 100, range: 0...100)
        configuration.console = try values.recovering(ConsoleSettings()) {
            try ConsoleSettings(reading: values.scoped("console"), environment: environment)
        }
        configuration.appPolicyReloadInterval = .seconds(try values.scoped("apps").int("policyReloadSeconds", default: 5, range: 1...3_600))
        return configuration
    }
}
