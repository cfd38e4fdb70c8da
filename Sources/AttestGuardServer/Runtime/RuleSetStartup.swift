public import AttestGuard
import Foundation
public import Logging
import RiskRules

/// The rule set a server starts with. A configured directory must load: a server never starts on rules with
/// problems (they are logged, each at its file, line and column). Without one, `Rules` in the working directory
/// is used if present; otherwise the server runs without rules and every verdict is allow.
public enum RuleSetStartup {
    public static func load(_ configuration: ServerConfiguration, clock: any EngineClock, logger: Logger) throws -> RuleSetReloader {
        let directory: String
        if let configured = configuration.rulesDirectory {
            directory = configured
        } else if FileManager.default.fileExists(atPath: "Rules") {
            directory = "Rules"
        } else {
            logger.notice("rules: none (set rules.directory); every verdict is allow")
            return RuleSetReloader(holder: RuleSetHolder(RuleSetHolder.empty), directory: nil, clock: clock, logger: logger)
        }
        do {
            let ruleSet = try RuleSetLoader.load(directory: directory)
            logger.info("rules loaded", metadata: [
                "directory": .string(directory), "version": .string(ruleSet.version), "rules": .stringConvertible(ruleSet.rules.count),
            ])
            return RuleSetReloader(holder: RuleSetHolder(ruleSet), directory: directory, clock: clock, logger: logger)
        } catch {
            for problem in error.errors { logger.error("rule problem", metadata: ["problem": .string(problem.description)]) }
            throw ConfigurationError(key: "rules.directory", "the rule set in \(directory) does not load: \(error.errors.count) problem(s), first: \(error.errors.first?.description ?? "?")")
        }
    }
}
