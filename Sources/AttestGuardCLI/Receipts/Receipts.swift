import ArgumentParser

extension AttestGuardCommand {
    /// `attestguard receipts`: the receipt refresh queue.
    struct Receipts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Redeem App Attest receipts with Apple for fresh risk metrics.",
            subcommands: [RefreshReceipts.self, BaselineCommand.self, SweepKeys.self]
        )
    }
}
