import ArgumentParser

extension AttestGuardCommand {
    /// `attestguard gateway`: the operator's tools for gateway route policies.
    struct Gateway: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check gateway route policies and see what one request would get.",
            subcommands: [CheckGatewayPolicy.self, ExplainGatewayPolicy.self]
        )
    }
}
