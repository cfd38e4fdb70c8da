import ArgumentParser
import AttestGuardRuntime
import Foundation

/// `--config FILE` and `--allow-unknown-keys` for the server commands: loads the file and the `ATTESTGUARD_*`
/// environment as `attestguard config check` does, reporting every problem, each naming its key, as a usage error
/// (exit 2). Unknown keys of the file are problems unless allowed; the configuration carries the warnings.
struct ConfigurationOption: ParsableArguments {
    @Option(name: .long, help: "A YAML (.yaml/.yml) or JSON configuration file; ATTESTGUARD_* variables override it.")
    var config: String?

    @Flag(name: .long, help: "Start although the file has keys this version does not read, with a warning for each (for a rollback).")
    var allowUnknownKeys = false

    /// - Parameter printingWarnings: Writes each warning to standard error; `serve` logs them instead (see
    ///   ``ServerRuntime``).
    func load(printingWarnings: Bool = true) async throws -> ServerConfiguration {
        let check = try await ConfigurationCheck.run(
            file: config, simulatorRoots: SimulatorTrustRoots.deviceSimulator, allowUnknownKeys: allowUnknownKeys
        )
        guard let configuration = check.configuration else {
            throw ValidationError(check.problems.map(\.description).joined(separator: "\n"))
        }
        if printingWarnings {
            for warning in check.warnings { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
        }
        return configuration
    }
}
