import ArgumentParser
import AttestGuardRuntime
import Foundation

/// `attestguard config check FILE`: reads the file and the `ATTESTGUARD_*` environment exactly as `serve` does, opens
/// the files it names (TLS, rule sets, gateway policies) and prints every problem with its key: unknown keys with the
/// key most likely meant, values that do not parse or have the wrong shape, missing secrets, unreadable files.
/// Unknown `ATTESTGUARD_*` variables are warnings. Exit 0 valid (with a summary), 1 with problems, 2 usage.
struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a configuration file (and the ATTESTGUARD_* environment) as serve reads it: exit 0 valid, 1 with problems."
    )

    @Argument(help: "The YAML (.yaml/.yml) or JSON configuration file.")
    var file: String

    @Flag(name: .long, help: "Accept keys this version does not read, as warnings (what serve --allow-unknown-keys accepts).")
    var allowUnknownKeys = false

    @Flag(name: .long, help: "Print one JSON object: valid, problems and warnings (code, key, problem, suggestion), summary.")
    var json = false

    func run() async throws {
        let check = try await ConfigurationCheck.run(
            file: file, simulatorRoots: SimulatorTrustRoots.deviceSimulator, allowUnknownKeys: allowUnknownKeys
        ).openingNamedFiles()
        let report = ConfigurationCheckReport(file: file, check: check)
        if json {
            FileHandle.standardOutput.write(try report.json() + Data("\n".utf8))
        } else {
            FileHandle.standardOutput.write(Data(report.text.utf8))
            FileHandle.standardError.write(Data(report.findings.utf8))
        }
        if !check.problems.isEmpty { throw ExitCode(1) }
    }
}
