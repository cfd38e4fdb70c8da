import ArgumentParser

extension AttestGuardCommand {
    /// `attestguard config`: the operator's tools for the server's configuration file.
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a configuration file as serve reads it.",
            subcommands: [CheckConfig.self]
        )
    }
}
