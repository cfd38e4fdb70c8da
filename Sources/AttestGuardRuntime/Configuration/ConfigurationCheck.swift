public import Foundation

/// A configuration read as `attestguard serve` reads it (one file and the `ATTESTGUARD_*` environment), with every
/// problem named by its key instead of the first alone: values that do not parse, required values and secrets that
/// are missing, files that cannot be read, keys of the file this version does not read (each with the key most
/// likely meant) and values of the wrong shape. Unknown `ATTESTGUARD_*` variables are warnings.
///
/// `attestguard config check` prints it; ``ServerConfigurationLoader/load(file:environment:simulatorRoots:allowUnknownKeys:)``
/// throws its first problem.
public struct ConfigurationCheck: Sendable {
    /// What stops the configuration from being used, in the order found; empty when it is valid.
    public let problems: [ConfigurationError]
    /// What is worth a warning: unknown `ATTESTGUARD_*` variables, and unknown keys when they are allowed.
    public let warnings: [ConfigurationError]
    /// The configuration, when there is no problem (its ``ServerConfiguration/warnings`` are ``warnings``).
    public let configuration: ServerConfiguration?

    /// Reads and checks a configuration.
    /// - Parameters:
    ///   - file: The configuration file; `nil` reads the environment alone (and selects simulator mode).
    ///   - environment: The `ATTESTGUARD_*` overrides and the variables that secrets name.
    ///   - simulatorRoots: Makes the test PKI's roots from `simulator.seed`, called in simulator mode only.
    ///   - allowUnknownKeys: Turns the file's unknown keys into warnings (`serve --allow-unknown-keys`, to run an
    ///     older release on a newer configuration during a rollback).
    /// - Throws: Only what `simulatorRoots` throws.
    public static func run(
        file: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        simulatorRoots: SimulatorTrustRoots.Maker,
        allowUnknownKeys: Bool = false
    ) async throws -> ConfigurationCheck {
        try await run(file: file, environment: environment, simulatorRoots: simulatorRoots, allowUnknownKeys: allowUnknownKeys, recorder: nil)
    }

    /// ``run(file:environment:simulatorRoots:allowUnknownKeys:)``, telling `recorder` the full path of every key read.
    package static func run(
        file: String?,
        environment: [String: String],
        simulatorRoots: SimulatorTrustRoots.Maker,
        allowUnknownKeys: Bool,
        recorder: ConfigValues.Recorder?
    ) async throws -> ConfigurationCheck {
        let collected = ConfigValues.Problems()
        let sources: ServerConfigurationLoader.Sources
        do {
            sources = try await ServerConfigurationLoader.Sources(file: file, environment: environment, recorder: recorder, problems: collected)
        } catch let problem as ConfigurationError {
            return ConfigurationCheck(problems: [problem], warnings: [], configuration: nil)
        }
        let values = sources.values
        var configuration: ServerConfiguration?
        do {
            configuration = try ServerConfigurationLoader.build(
                values, fileValues: sources.fileValues, environment: environment, simulatorRoots: simulatorRoots
            )
        } catch let problem as ConfigurationError {
            collected.append(problem)
        }
        let names = Names(
            apps: values.scoped("apps").stringArray("names"), apiKeys: values.scoped("apiKeys").stringArray("names"),
            webhooks: values.scoped("webhooks").stringArray("names")
        )
        var problems = collected.all
        var warnings: [ConfigurationError] = []
        if let file {
            do {
                let reported = Set(problems.map(\.key))
                let keys = try keyProblems(in: ConfigurationFileKeys(file: file), names: names)
                // A key the loader has refused already (an inline secret) is named once, by the loader.
                let unknown = keys.unknown.filter { !reported.contains($0.key) }
                problems += keys.shapes
                if allowUnknownKeys { warnings += unknown } else { problems += unknown }
            } catch {
                problems.append(ConfigurationError(key: "--config", "cannot read the keys of \(file): \(error)", code: .unreadableFile))
            }
        }
        let secretVariables = ConfigurationKey.all.filter { $0.path.hasSuffix("Env") }
            .flatMap { $0.concretePaths(apps: names.apps, apiKeys: names.apiKeys, webhooks: names.webhooks) }
            .compactMap { values.string($0) }
        warnings += unknownVariables(in: environment, names: names, secretVariables: Set(secretVariables))
        configuration?.warnings = warnings
        return ConfigurationCheck(problems: problems, warnings: warnings, configuration: problems.isEmpty ? configuration : nil)
    }
}
