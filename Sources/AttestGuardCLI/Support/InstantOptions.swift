import ArgumentParser
import Foundation

/// The verification instant and clock-skew tolerance shared by the `verify` commands that check certificates.
struct InstantOptions: ParsableArguments {
    @Option(help: "The instant to verify at, ISO-8601 UTC (default: now).")
    var at: String?

    @Option(help: "Clock-skew tolerance in seconds.")
    var clockSkew: Double = 120

    /// The instant to verify at.
    func instant() throws -> Date {
        try InputFile.instant(at)
    }
}
