import ArgumentParser

extension AttestGuardCommand {
    /// `attestguard labels`: the fraud team's labels of decisions, keys, users and devices.
    struct Labels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store the fraud team's labels of decisions, keys, users and devices.",
            subcommands: [ImportLabelsCommand.self]
        )
    }
}
