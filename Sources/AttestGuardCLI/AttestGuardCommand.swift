import ArgumentParser
import AttestGuardRuntime
import Foundation

/// The `attestguard` command line: `serve` the HTTP API, `demo` (a server, a fake Apple and simulated clients in one
/// process), `config check` a configuration file, `migrate` its database, `receipts refresh` (the nightly batch), `rules lint|test|explain|signals` (for
/// analysts), `keys history` and `decisions` (what the store recorded), `verify` objects offline, `simulate apple|device|traffic` (a fake of Apple's services, one simulated
/// device, the demo's clients against a running server), `reference` (the generated pages of `docs/reference/`).
@main
struct AttestGuardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attestguard",
        abstract: "App Attest verification and risk server.",
        version: AttestGuardVersion.full,
        subcommands: [Serve.self, Demo.self, Config.self, Migrate.self, Receipts.self, Rules.self, Keys.self, DecisionsCommand.self, Labels.self, Lists.self, DebugTokens.self, Gateway.self, Verify.self, Simulate.self, Reference.self]
    )

    /// Runs the command with AttestGuard's exit codes: 0 valid (or help), 1 invalid, 2 usage error.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exitCode as ExitCode {
            Foundation.exit(exitCode.rawValue)
        } catch {
            if exitCode(for: error) == .success {
                exit(withError: error)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}
