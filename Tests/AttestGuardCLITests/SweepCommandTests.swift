import AttestGuardStore
import AttestTestSupport
import Foundation
import Testing

/// `attestguard receipts sweep`: the sweep rule set over every active key of a store the tests fill (PostgreSQL when
/// configured, else SQLite): a dry run flags and changes nothing, a sweep runs the actions, the next sweep no longer
/// sees a revoked key; and its exit codes.
@Suite("attestguard receipts sweep")
struct SweepCommandTests {
    static let rules = """
        version: 1
        rules:
          - id: labelled-key
            when: label.key == "fraud"
            decide: deny
            then: revoke_key
        """

    /// A store holding five active keys, one of them labelled fraud; the environment that configures it, and the
    /// labelled key's id (standard base64).
    static func store() async throws -> (environment: [String: String], labelled: String) {
        let test: TestStore
        let environment: [String: String]
        if TestPostgres.isEnabled {
            let url = try await TestPostgres.freshSchemaURL(prefix: "s")
            test = try await TestStore.postgres(url: url, poolSize: 2)
            environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        } else {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID().uuidString).sqlite").path
            test = try await TestStore.sqlite(path: path)
            environment = ServerProcess.environment(databaseURL: nil, sqlitePath: path)
        }
        do {
            let keys = try await ReceiptFleet.register(count: 5, in: test.store, at: Date(), placeholderReceipts: true, parallelism: 1)
            let labelled = keys[2].keyId.base64EncodedString()
            _ = try await test.store.storeLabels([FraudLabelRecord(
                appId: SimulatorFixtures.app.appId, kind: .key, subject: labelled, source: "chargebacks", label: .fraud, labelledAt: Date()
            )])
            await test.close()
            return (environment, labelled)
        } catch {
            await test.close()
            throw error
        }
    }

    @Test("a dry run flags the labelled key and changes nothing; the sweep revokes it; the next sweep no longer sees it")
    func sweep() async throws {
        let (environment, labelled) = try await Self.store()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.rules.write(to: folder.appendingPathComponent("sweep.yaml"), atomically: true, encoding: .utf8)
        func sweep(_ arguments: String...) async throws -> CommandLineRunner.Result {
            try await CommandLineRunner.run(["receipts", "sweep", "--rules", folder.path] + arguments, environment: environment)
        }
        func app(_ result: CommandLineRunner.Result) throws -> [String: Any] {
            #expect(result.status == 0, "\(result.standardError)")
            return try #require((result.json["apps"] as? [[String: Any]])?.first, "\(result.standardOutput)")
        }

        let dry = try await sweep("--dry-run", "--json")
        #expect(dry.json["dryRun"] as? Bool == true)
        let dryApp = try app(dry)
        #expect(dryApp["keys"] as? Int == 5 && dryApp["flagged"] as? Int == 1 && dryApp["failed"] as? Int == 0, "\(dryApp)")
        #expect(dryApp["actions"] as? [String: Int] == ["revoke_key": 1] && dryApp["rules"] as? [String: Int] == ["labelled-key": 1])
        let flagged = try #require((dryApp["flaggedKeys"] as? [[String: Any]])?.first)
        #expect(flagged["keyId"] as? String == labelled && flagged["decision"] as? String == "deny" && flagged["actions"] as? [String] == ["revoke_key"])

        let swept = try app(try await sweep("--json"))
        #expect(swept["keys"] as? Int == 5 && swept["flagged"] as? Int == 1, "the dry run revoked nothing: \(swept)")
        let after = try app(try await sweep("--json"))
        #expect(after["keys"] as? Int == 4 && after["flagged"] as? Int == 0, "the sweep revoked the labelled key: \(after)")

        let text = try await sweep("--dry-run")
        #expect(text.status == 0 && text.standardOutput.contains("4 keys, 0 flagged, 0 not scored"), "\(text.standardOutput)")
        let unconfigured = try await CommandLineRunner.run(["receipts", "sweep"], environment: environment)
        #expect(unconfigured.status == 2 && unconfigured.standardError.contains("rules.sweepDirectory"), "\(unconfigured.standardError)")
        #expect(try await sweep("--app", "ZZZZZ99999.com.example.none").status == 2)
        #expect(try await CommandLineRunner.run(["receipts", "sweep", "--rules", "/nonexistent"], environment: environment).status == 2)
    }
}
