import ArgumentParser
import AttestGuardRuntime
import AttestVocabulary
import RiskRules

extension AttestGuardCommand {
    /// `attestguard reference configuration|metrics|signals`: the reference pages under `docs/reference/`, printed
    /// from the code's own catalogs, so that the committed pages can be written again when a catalog changes.
    struct Reference: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a reference page generated from the code's own catalogs (Markdown).",
            subcommands: [ConfigurationKeys.self, Metrics.self, Signals.self]
        )

        /// `attestguard reference configuration`: `docs/reference/configuration.md`.
        struct ConfigurationKeys: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "configuration", abstract: "Every configuration key, its environment variable and what it holds."
            )

            func run() { print(ConfigurationKey.referenceMarkdown(), terminator: "") }
        }

        /// `attestguard reference metrics`: `docs/reference/metrics.md`.
        struct Metrics: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Every metric family the server exports, its type and its HELP text."
            )

            func run() { print(MetricFamily.referenceMarkdown(), terminator: "") }
        }

        /// `attestguard reference signals`: `docs/reference/signals.md`.
        struct Signals: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Every signal rules can read, with its type.")

            func run() { print(SignalSchema.referencePage(), terminator: "") }
        }
    }
}
