import AttestGuardEngine
import Foundation
import Logging

extension ConfigurationCheck {
    /// The check with the files the configuration names opened as `serve` opens them at start-up: the TLS
    /// certificate chain and key readable, the rule sets (`rules.directory`, `rules.shadowDirectory` and `rules.sweepDirectory`) and the
    /// gateway policies (`gateway.policyDirectory`) loading. Nothing is opened when there are problems already.
    /// - Parameter rulesFallback: The rule directory `serve` uses when none is configured and it exists.
    public func openingNamedFiles(rulesFallback: String? = "Rules") -> ConfigurationCheck {
        guard let configuration else { return self }
        var found: [ConfigurationError] = []
        if let tls = configuration.tls {
            let files = [("server.tls.certificateChainPath", tls.certificateChainPath), ("server.tls.privateKeyPath", tls.privateKeyPath)]
            for (key, path) in files where !FileManager.default.isReadableFile(atPath: path) {
                found.append(ConfigurationError(key: key, "cannot read \(path)", code: .unreadableFile))
            }
        }
        let logger = Logger(label: "attestguard.configuration-check") { _ in SwiftLogNoOpLogHandler() }
        let clock = SystemClock()
        do {
            _ = try RuleSetStartup.load(configuration, clock: clock, logger: logger, fallbackDirectory: rulesFallback)
        } catch {
            found.append(error as? ConfigurationError ?? ConfigurationError(key: "rules.directory", String(describing: error)))
        }
        do {
            _ = try RuleSetStartup.loadSweep(configuration, logger: logger)
        } catch {
            found.append(error as? ConfigurationError ?? ConfigurationError(key: "rules.sweepDirectory", String(describing: error)))
        }
        do {
            _ = try GatewayPolicyReloader(settings: configuration.gateway, apps: AppCatalog(configuration.apps), clock: clock, logger: logger)
        } catch {
            found.append(error as? ConfigurationError ?? ConfigurationError(key: "gateway.policyDirectory", String(describing: error)))
        }
        guard !found.isEmpty else { return self }
        return ConfigurationCheck(problems: problems + found, warnings: warnings, configuration: nil)
    }
}
