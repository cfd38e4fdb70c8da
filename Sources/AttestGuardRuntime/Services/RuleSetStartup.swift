public import AttestGuardEngine
import Foundation
public import Logging
public import RiskRules

/// The rule set a server starts with. A configured directory must load: a server never starts on rules with
/// problems (they are logged, each at its file, line and column). Without one, `Rules` in the working directory
/// is used if present; otherwise the server runs without live rules and every verdict is allow. A configured shadow
/// set loads either way: with no live rules it is how a team watches what a first rule set would decide before
/// it enforces anything.
public enum RuleSetStartup {
    /// `fallbackDirectory`: used when none is configured and it exists (relative to the working directory).
    public static func load(
        _ configuration: ServerConfiguration, clock: any EngineClock, logger: Logger, fallbackDirectory: String? = "Rules"
    ) throws -> RuleSetReloader {
        let limit = configuration.ruleHitMetricsLimit
        let shadow = try configuration.shadowRulesDirectory.map {
            (holder: RuleSetHolder(try load($0, key: "rules.shadowDirectory", logger: logger), role: .shadow, hitMetricsLimit: limit), directory: $0)
        }
        let directory: String
        if let configured = configuration.rulesDirectory {
            directory = configured
        } else if let fallbackDirectory, FileManager.default.fileExists(atPath: fallbackDirectory) {
            directory = fallbackDirectory
        } else {
            logger.notice("rules: none (set rules.directory); every verdict is allow", metadata: shadow.map { ["shadow": .string($0.directory)] } ?? [:])
            return RuleSetReloader(
                holder: RuleSetHolder(RuleSetHolder.empty, hitMetricsLimit: limit), directory: nil, shadow: shadow, clock: clock, logger: logger
            )
        }
        let live = try load(directory, key: "rules.directory", logger: logger)
        return RuleSetReloader(holder: RuleSetHolder(live, hitMetricsLimit: limit), directory: directory, shadow: shadow, clock: clock, logger: logger)
    }

    /// The sweep's rule set (`rules.sweepDirectory`), which must load as the live one must; `nil` without one.
    public static func loadSweep(_ configuration: ServerConfiguration, logger: Logger) throws -> RuleSet? {
        try configuration.sweepRulesDirectory.map { try load($0, key: "rules.sweepDirectory", logger: logger) }
    }

    private static func load(_ directory: String, key: String, logger: Logger) throws -> RuleSet {
        do {
            let ruleSet = try RuleSetLoader.load(directory: directory)
            logger.info("rules loaded", metadata: [
                "directory": .string(directory), "version": .string(ruleSet.version), "rules": .stringConvertible(ruleSet.rules.count),
                "shadow": .stringConvertible(key == "rules.shadowDirectory"),
            ])
            return ruleSet
        } catch {
            for problem in error.errors { logger.error("rule problem", metadata: ["problem": .string(problem.description)]) }
            throw ConfigurationError(key: key, "the rule set in \(directory) does not load: \(error.errors.count) problem(s), first: \(error.errors.first?.description ?? "?")")
        }
    }
}
