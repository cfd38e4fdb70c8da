import ArgumentParser

extension AttestGuardCommand {
    /// `attestguard simulate`: local stand-ins for Apple, for tests, benchmarks and demos.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run local stand-ins for Apple's services.",
            subcommands: [SimulateApple.self, SimulateDevice.self, SimulateTraffic.self]
        )
    }
}
