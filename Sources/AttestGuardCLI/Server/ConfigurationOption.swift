import ArgumentParser
import AttestGuardServer

/// `--config FILE` for the server commands: loads the file and the `ATTESTGUARD_*` environment, reporting a bad
/// value as a usage error (exit 2) that names its key.
struct ConfigurationOption: ParsableArguments {
    @Option(name: .long, help: "A YAML (.yaml/.yml) or JSON configuration file; ATTESTGUARD_* variables override it.")
    var config: String?

    func load() async throws -> ServerConfiguration {
        do {
            return try await ServerConfigurationLoader.load(file: config, simulatorRoots: SimulatorTrustRoots.deviceSimulator)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
