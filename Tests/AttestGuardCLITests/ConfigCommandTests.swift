import Crypto
import Foundation
import Testing

/// `attestguard config check`, and `serve` refusing (or, with `--allow-unknown-keys`, accepting) a file with keys
/// it does not read, as processes.
@Suite("CLI: config check and unknown keys")
struct ConfigCommandTests {
    /// The environment of these commands: the test process's, without its `ATTESTGUARD_*` variables.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ATTESTGUARD_") }.merging(extra) { $1 }
    }

    static func file(_ yaml: String) throws -> String {
        try CommandLineRunner.temporaryFile(Array(yaml.utf8), name: "attestguard.yaml")
    }

    static let valid = """
        mode: simulator
        server: { port: 0 }
        database: { poolSize: 4, sqlitePath: \(FileManager.default.temporaryDirectory.path)/attestguard-config-\(UUID().uuidString).sqlite }
        apps: { names: [shop], shop: { appId: ABCDE12345.com.example.attestguard, environments: [development] } }
        apple:
          teamId: ABCDE12345
          keyId: KEY1234567
          privateKeyEnv: CONFIG_TEST_P8
          hosts: { receiptsDevelopment: "http://127.0.0.1:8090", deviceCheckDevelopment: "http://127.0.0.1:8091" }
        """

    /// A provider key made for the run (never printed by the check).
    static let providerKey = P256.Signing.PrivateKey().pemRepresentation

    @Test("a valid file: exit 0, OK and the summary with the Apple hosts used; never the key")
    func valid() async throws {
        let result = try await CommandLineRunner.run(["config", "check", try Self.file(Self.valid)], environment: Self.environment(["CONFIG_TEST_P8": Self.providerKey]))
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.first?.hasSuffix(": OK") == true, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("mode=simulator") && result.standardOutput.contains("store=sqlite "))
        #expect(result.standardOutput.contains("receipts development=http://127.0.0.1:8090 devicecheck development=http://127.0.0.1:8091"), "\(result.standardOutput)")
        #expect(!result.standardOutput.contains("PRIVATE KEY") && !result.standardError.contains("PRIVATE KEY"))
    }

    @Test("a misspelled key: exit 1, naming the key and the key meant; --json says the same")
    func misspelledKey() async throws {
        let file = try Self.file(Self.valid.replacingOccurrences(of: "poolSize: 4", with: "poolSiz: 4"))
        let environment = Self.environment(["CONFIG_TEST_P8": Self.providerKey])
        let result = try await CommandLineRunner.run(["config", "check", file], environment: environment)
        #expect(result.status == 1, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains("1 problem"), "\(result.standardOutput)")
        #expect(result.standardError.contains("error: database.poolSiz: unknown key") && result.standardError.contains("did you mean database.poolSize?"),
                "\(result.standardError)")

        let json = try await CommandLineRunner.run(["config", "check", "--json", file], environment: environment)
        #expect(json.status == 1)
        #expect(json.json["valid"] as? Bool == false)
        let problem = try #require((json.json["problems"] as? [[String: Any]])?.first, "\(json.standardOutput)")
        #expect(problem["code"] as? String == "unknown_key" && problem["key"] as? String == "database.poolSiz")
        #expect(problem["suggestion"] as? String == "database.poolSize")
    }

    @Test("a wrong type and an unreadable secret file, each with its key path")
    func wrongTypeAndUnreadableSecret() async throws {
        let yaml = Self.valid.replacingOccurrences(of: "port: 0", with: "port: eighty")
            .replacingOccurrences(of: "privateKeyEnv: CONFIG_TEST_P8", with: "privateKeyFile: /nonexistent/AuthKey.p8")
        let result = try await CommandLineRunner.run(["config", "check", try Self.file(yaml)], environment: Self.environment())
        #expect(result.status == 1)
        #expect(result.standardError.contains("error: server.port: must be an integer in 0...65535, got eighty"), "\(result.standardError)")
        #expect(result.standardError.contains("error: apple.privateKeyFile: ") && result.standardError.contains("/nonexistent/AuthKey.p8"))
    }

    @Test("serve refuses a file with an unknown key (exit 2, naming it and the key meant)")
    func serveRefusesUnknownKeys() async throws {
        let file = try Self.file(Self.valid + "\nlogLevl: debug\n")
        let result = try await CommandLineRunner.run(["serve", "--config", file], environment: Self.environment(["CONFIG_TEST_P8": Self.providerKey]))
        #expect(result.status == 2, "\(result.standardError)")
        #expect(result.standardError.contains("configuration logLevl: unknown key") && result.standardError.contains("did you mean logLevel?"),
                "\(result.standardError)")
    }

    @Test("serve --allow-unknown-keys starts, warning of each unknown key; an unknown ATTESTGUARD_ variable is a warning")
    func serveAllowsUnknownKeys() async throws {
        let file = try Self.file(Self.valid + "\nlogLevl: debug\n")
        let environment = Self.environment(["CONFIG_TEST_P8": Self.providerKey, "ATTESTGUARD_SERVER_PROT": "1"])
        let server = try await ServerProcess(environment: environment, arguments: ["serve", "--config", file, "--allow-unknown-keys"])
        let ready = try await server.send("GET", "readyz")
        #expect(ready.status == 200)
        let log = server.stopAndReadLog()
        let warnings = log.split(separator: "\n").filter { $0.contains("configuration warning") }
        #expect(warnings.contains { $0.contains("key=logLevl") && $0.contains("suggestion=logLevel") }, "\(log)")
        #expect(warnings.contains { $0.contains("key=ATTESTGUARD_SERVER_PROT") && $0.contains("suggestion=ATTESTGUARD_SERVER_PORT") }, "\(log)")
    }
}
