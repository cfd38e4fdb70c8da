import AttestTestSupport
import Foundation
import Testing
import TrafficSimulator

/// `attestguard demo` and `attestguard simulate traffic` as a newcomer runs them: every persona gets the outcome the
/// reviewed expectations give it, a rule set without `key-farm` fails the demo, and the personas behave the same
/// against a PostgreSQL-backed server started on its own.
@Suite("attestguard demo and simulate traffic", .serialized)
struct DemoProcessTests {
    /// The repository's `Rules/`.
    static let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Rules")

    static func rows(_ result: CommandLineRunner.Result) throws -> [TrafficReport.Row] {
        try JSONDecoder().decode([TrafficReport.Row].self, from: Data(result.standardOutput.utf8))
    }

    @Test("a short demo: every persona gets its expected outcome, receipts bring the farm's risk metric")
    func shortDemo() async throws {
        let result = try await CommandLineRunner.run(["demo", "--duration", "2", "--json"])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let rows = try Self.rows(result)
        #expect(rows.map(\.persona) == Persona.allCases.map(\.rawValue))
        for row in rows {
            #expect(row.matched, "\(row.persona): expected \(row.expected), got \(row.actual)")
            #expect(row.checked > 0)
        }
        let byPersona = Dictionary(uniqueKeysWithValues: rows.map { ($0.persona, $0) })
        #expect(byPersona["farm"]?.actual == "deny (score 90) x22")
        #expect(byPersona["burst"]?.actual == "review (score 50)")
        #expect(byPersona["farm"]?.reasons == ["key-farm", "new-keys-burst"])
        #expect(byPersona["promo-abuser"]?.reasons.first == "promo-already-claimed")
        #expect(byPersona["replayer"]?.actual == "409 assertion_already_accepted")
        #expect(byPersona["tamperer"]?.actual == "422 request_binding_mismatch")
        #expect(byPersona["unattested-outside-rollout"]?.actual == "review (score 30)")
        #expect(byPersona["blocked-range"]?.actual == "deny (score 0)", "an analyst's block reaches the next verdict")
        // The last progress line (not a terminal: one line at a time) counts the farm's redeemed receipts.
        #expect(result.standardError.contains("35 on 22 keys"), "\(result.standardError)")
        #expect(result.standardError.contains("simulator mode"))
    }

    @Test("the labelled history: checked requests labelled through /v1/labels and by review items approved in the console")
    func labelledHistory() async throws {
        let result = try await CommandLineRunner.run(["demo", "--duration", "1"])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        let output = result.standardOutput
        let lines = output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(output.contains("26 fraud, "), "\(output)")
        // The two clients without App Attest are labelled by the analyst's approvals alone: without them, the rules
        // that fire on those clients would fire on no labelled decision and `deny or review` would gain precision.
        #expect(lines.contains { $0.hasPrefix("posted to /v1/labels: ") }, "\(output)")
        #expect(lines.contains("review items decided in the console: 2, now 2 labels of source review"), "\(output)")
        for persona in PersonaExpectations.decidedInReviewQueue {
            #expect(lines.contains { $0.hasPrefix("item ") && $0.hasSuffix("(\(persona.rawValue)): approved") }, "\(persona) in\n\(output)")
        }
        for expected in [
            "key-farm ok 22 1.000 0.846 1.000 / 0.846",
            "new-keys-burst ok 22 1.000 0.846 1.000 / 0.846",
            "promo-already-claimed ok 1 1.000 0.038 1.000 / 0.038",
            "non-store-build-claims-promo ok 1 1.000 0.038 1.000 / 0.038",
            "blocked-ip ok 1 1.000 0.038 1.000 / 0.038",
            "assertion-burst ok 1 1.000 0.038 1.000 / 0.038",
            "attestation-required-but-missing ok 1 0.000 0.000 0.000 / 0.000",
            "rule set: deny ok 1.000 0.962 1.000 / 0.962",
            "unsupported-without-devicecheck ok 2 0.000 0.000 0.000 / 0.000",
            "rule set: deny or review ok 0.929 1.000 0.929 / 1.000",
        ] {
            #expect(lines.contains(expected), "no line \(expected) in\n\(output)")
        }
        #expect(output.contains("the rules' precision and recall are the expected ones\n"), "\(output)")
    }

    @Test("with key-farm removed from the rule set, the demo exits 1 and names the farm alone")
    func demoWithoutKeyFarm() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-demo-rules-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Self.rules, to: folder)
        let file = folder.appendingPathComponent("default.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        // The rule's block: from its id to the next rule.
        let edited = text.replacing(/\ \ - id: key-farm\n(?:\ {4}.*\n)+\n/, with: "")
        #expect(edited != text && !edited.contains("key-farm"))
        try edited.write(to: file, atomically: true, encoding: .utf8)

        let result = try await CommandLineRunner.run(["demo", "--rules", folder.path, "--duration", "1"])
        #expect(result.status == 1, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains("UNEXPECTED outcomes for: farm\n"), "\(result.standardOutput)")
        // The labelled history misses the rule it expects to catch the farm, and the deny line's recall drops.
        #expect(result.standardOutput.contains("UNEXPECTED precision or recall\n"), "\(result.standardOutput)")
    }

    @Test("simulate traffic against a PostgreSQL-backed server and the fake Apple: every persona as expected",
          .enabled(if: TestPostgres.isEnabled))
    func trafficOnPostgres() async throws {
        let url = try await TestPostgres.freshSchemaURL(prefix: "demo")
        let (fake, apple) = try await ReceiptBatchProcessTests.startFakeApple(scenario: ["--risk-metric", "1"])
        defer { fake.stop() }
        var environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil).merging(apple) { _, new in new }
        environment["ATTESTGUARD_RULES_DIRECTORY"] = Self.rules.path
        environment["ATTESTGUARD_APPS_MAIN_ATTESTATION_REQUIRED_PERCENT"] = "50"
        environment["ATTESTGUARD_API_KEYS_GATEWAY_SCOPES"] = "verify,score,admin,devicecheck:write"
        environment["ATTESTGUARD_CHALLENGES_MAX_PER_USER"] = "30"
        environment["ATTESTGUARD_RECEIPTS_REFRESH_FIRST_REDEMPTION_DELAY_SECONDS"] = "1"
        environment["ATTESTGUARD_RECEIPTS_REFRESH_POLL_SECONDS"] = "1"
        let server = try await ServerProcess(environment: environment)
        defer { server.stop() }

        let keyFile = try CommandLineRunner.temporaryFile(Array(ServerProcess.apiKey.utf8), name: "api-key")
        let result = try await CommandLineRunner.run([
            "simulate", "traffic", "--server", server.baseURL.absoluteString, "--api-key-file", keyFile,
            "--fake-apple", fake.baseURL.absoluteString, "--seed", "attestguard-tests", "--duration", "2", "--json",
        ])
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)\n\(server.standardError)")
        let rows = try Self.rows(result)
        #expect(rows.map(\.persona) == Persona.allCases.map(\.rawValue))
        for row in rows { #expect(row.matched, "\(row.persona): expected \(row.expected), got \(row.actual)") }
        #expect(server.errorLines.isEmpty, "\(server.errorLines)")
    }

    @Test("simulate traffic refuses what is not a simulator-mode server, before sending anything else")
    func trafficRefusesOtherServers() async throws {
        let (fake, _) = try await ReceiptBatchProcessTests.startFakeApple(scenario: [])
        defer { fake.stop() }
        let result = try await CommandLineRunner.run(["simulate", "traffic", "--server", fake.baseURL.absoluteString, "--duration", "1"])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.contains("not an AttestGuard server in simulator mode"), "\(result.standardError)")
    }

    @Test("usage errors exit 2 before anything starts: no duration, a rollout no user can be outside of, an unknown persona")
    func usageErrors() async throws {
        let noDuration = try await CommandLineRunner.run(["demo", "--duration", "0"])
        #expect(noDuration.status == 2, "\(noDuration.standardError)")
        let fullRollout = try await CommandLineRunner.run(["simulate", "traffic", "--server", "http://127.0.0.1:1", "--attestation-required-percent", "100"])
        #expect(fullRollout.status == 2)
        #expect(fullRollout.standardError.contains("--attestation-required-percent 1...99"), "\(fullRollout.standardError)")
        let unknown = try await CommandLineRunner.run(["simulate", "traffic", "--server", "http://127.0.0.1:1", "--personas", "farm,robot"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("robot is not a persona"), "\(unknown.standardError)")
        let farmAlone = try await CommandLineRunner.run(["simulate", "traffic", "--server", "http://127.0.0.1:1", "--personas", "farm", "--attestation-required-percent", "0"])
        #expect(farmAlone.status == 2, "no unattested persona: the percentage is not checked, the server is unreachable")
        #expect(farmAlone.standardError.contains("cannot reach"), "\(farmAlone.standardError)")
    }
}
