import AppleServices
import AttestCore
import AttestGuardEngine
import Foundation

extension AppleConfiguration {
    /// Reads `apple.*`: credentials from `teamId`, `keyId` and `privateKeyFile` / `privateKeyEnv`; base URLs
    /// (`hosts.receiptsDevelopment`, `hosts.receiptsProduction`, `hosts.deviceCheckDevelopment`,
    /// `hosts.deviceCheckProduction`) only in simulator mode: production talks to Apple's hosts and nothing else.
    init(reading values: ConfigValues, mode: ServerConfiguration.Mode, environment: [String: String]) throws {
        let timeout = Duration.milliseconds(try values.int("requestTimeoutMilliseconds", default: 10_000, range: 100...120_000))
        let overrides: [(String, WritableKeyPath<AppleConfiguration, String>)] = [
            ("hosts.receiptsDevelopment", \.receipts.developmentBaseURL),
            ("hosts.receiptsProduction", \.receipts.productionBaseURL),
            ("hosts.deviceCheckDevelopment", \.deviceCheck.developmentBaseURL),
            ("hosts.deviceCheckProduction", \.deviceCheck.productionBaseURL),
        ]
        var apple = AppleConfiguration()
        apple.receipts.timeout = timeout
        apple.deviceCheck.timeout = timeout
        for (key, path) in overrides {
            guard let url = values.string(key) else { continue }
            guard mode == .simulator else {
                throw ConfigurationError(key: values.path(key), "only simulator mode may point AttestGuard at hosts other than Apple's")
            }
            guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme ?? ""), components.host != nil else {
                throw ConfigurationError(key: values.path(key), "must be an http(s) URL, got \(url)")
            }
            apple[keyPath: path] = url.hasSuffix("/") ? String(url.dropLast()) : url
        }

        let teamId = values.string("teamId")
        let keyId = values.string("keyId")
        guard teamId != nil || keyId != nil || values.string("privateKeyFile") != nil || values.string("privateKeyEnv") != nil else {
            self = apple
            return
        }
        guard let teamId, teamId.count == 10, teamId.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw ConfigurationError(key: values.path("teamId"), "must be the 10-character Apple team id")
        }
        guard let keyId, keyId.count == 10, keyId.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else {
            throw ConfigurationError(key: values.path("keyId"), "must be the 10-character id of a .p8 key with DeviceCheck enabled")
        }
        do {
            try values.refuseInlineSecret("privateKey", use: "privateKeyFile or privateKeyEnv")
            if let file = values.string("privateKeyFile") {
                apple.credentials = try AppleProviderCredentials.load(teamId: teamId, keyId: keyId, privateKeyFile: file)
            } else if let variable = values.string("privateKeyEnv") {
                apple.credentials = try AppleProviderCredentials.load(teamId: teamId, keyId: keyId, environmentVariable: variable, environment: environment)
            } else {
                throw ConfigurationError(key: values.path("privateKeyFile"), "the Apple key needs privateKeyFile or privateKeyEnv", code: .missingSecret)
            }
        } catch let error as ProviderCredentialsError {
            let code: ConfigurationError.Code =
                switch error.code {
                case .keyFileUnreadable: .unreadableFile
                case .environmentVariableMissing: .missingSecret
                default: .invalidValue
                }
            throw ConfigurationError(key: values.path(values.string("privateKeyFile") != nil ? "privateKeyFile" : "privateKeyEnv"), error.description, code: code)
        }
        self = apple
    }
}
