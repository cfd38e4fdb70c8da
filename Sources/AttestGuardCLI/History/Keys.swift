import ArgumentParser

extension AttestGuardCommand {
    /// `attestguard keys`: reading registered keys from the store.
    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read registered keys from the store.",
            subcommands: [KeyHistoryCommand.self]
        )
    }
}
