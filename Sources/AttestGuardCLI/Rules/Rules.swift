import ArgumentParser

extension AttestGuardCommand {
    /// `attestguard rules`: the analyst's tools for rule sets.
    struct Rules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check, test and explain risk rule sets.",
            subcommands: [LintRules.self, TestRules.self, ExplainRules.self, BacktestRules.self, ListSignals.self]
        )
    }
}
