import AttestTestSupport
import AttestVocabulary
import Crypto
import Foundation
import AttestGuardStore
import Synchronization
import Testing

/// `attestguard keys history` and `attestguard decisions` over the configured store (PostgreSQL when the suite has
/// one, else SQLite).
@Suite("attestguard keys history and attestguard decisions")
struct HistoryCommandTests {
    static let appId = SimulatorFixtures.app.appId
    /// The key of the keyed hashes a simulator-mode configuration without `privacy.hashKey*` derives from its seed.
    static let hashKey = "attestguard-simulator-hash-key:attestguard-tests"

    /// The log's keyed hash of a subject: the first 16 bytes of HMAC-SHA-256(key, dimension NUL value), in hex.
    static func hash(_ dimension: String, _ value: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data((dimension + "\0" + value).utf8), using: SymmetricKey(data: Data(hashKey.utf8)))
        return Data(code).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// A fresh store that `fill` writes to, closed again; the command's environment for it.
    static func store(_ fill: (any RiskStore) async throws -> Void) async throws -> [String: String] {
        if TestPostgres.isEnabled {
            let url = try await TestPostgres.freshSchemaURL(prefix: "h")
            let store = try await TestStore.postgres(url: url, poolSize: 4)
            try await fill(store.store)
            await store.close()
            return ServerProcess.environment(databaseURL: url, sqlitePath: nil)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString).sqlite").path
        let store = try await TestStore.sqlite(path: path)
        try await fill(store.store)
        await store.close()
        return ServerProcess.environment(databaseURL: nil, sqlitePath: path)
    }

    @Test("keys history prints a key's risk metrics newest first; 1 for an unknown key, 2 for a malformed one")
    func keyHistory() async throws {
        let member = Mutex<ReceiptFleet.Member?>(nil)
        let environment = try await Self.store { store in
            let registered = try #require(try await ReceiptFleet.register(count: 1, in: store).first)
            member.withLock { $0 = registered }
            for (offset, metric) in [(3_600.0, 2), (7_200, 7)] {
                let created = SimulatorFixtures.now.addingTimeInterval(offset)
                let receipt = ReceiptRecord(
                    appId: Self.appId, keyId: registered.keyId, receiptType: .receipt, receipt: Data("r\(offset)".utf8), createdAt: created,
                    notBefore: nil, expiresAt: nil, riskMetric: metric, storedAt: created, nextRefreshAt: created.addingTimeInterval(86_400)
                )
                _ = try await store.replaceReceipt(ReceiptReplacement(receipt: receipt, leaseOwner: "test", observedAt: created))
            }
        }
        let keyId = try #require(member.withLock { $0 }).keyId
        let key = keyId.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")

        let json = try await CommandLineRunner.run(["keys", "history", "--app", Self.appId, "--key=\(key)", "--json"], environment: environment)
        #expect(json.status == 0, "\(json.standardError)")
        #expect(json.json["keyId"] as? String == keyId.base64EncodedString())
        #expect((json.json["riskMetrics"] as? [[String: Any]])?.compactMap { $0["riskMetric"] as? Int } == [7, 2])
        #expect((json.json["receipt"] as? [String: Any])?["riskMetric"] as? Int == 7)

        let text = try await CommandLineRunner.run(["keys", "history", "--app", Self.appId, "--key=\(keyId.base64EncodedString())", "--limit", "1"], environment: environment)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("risk metric 7"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("risk metrics, newest receipt first:"))
        #expect(!text.standardOutput.contains("  2  (observed"), "the limit holds")

        let unknown = try await CommandLineRunner.run(["keys", "history", "--app", Self.appId, "--key", String(repeating: "A", count: 43)], environment: environment)
        #expect(unknown.status == 1, "\(unknown.standardError)")
        let malformed = try await CommandLineRunner.run(["keys", "history", "--app", Self.appId, "--key", "nope"], environment: environment)
        #expect(malformed.status == 2)
    }

    @Test("decisions finds a user's and a device's decisions by their keyed hash, pages on, and refuses bad requests")
    func decisions() async throws {
        let now = Date()
        let user = Self.hash("user", "cli-user")
        let device = Self.hash("device", "cli-device")
        var entries: [DecisionLogEntry] = []
        for index in 0..<5 {
            let decision: Decision = index == 0 ? .deny : .allow
            entries.append(DecisionLogEntry(
                appId: Self.appId, decidedAt: now.addingTimeInterval(-Double(index) * 60), endpoint: .assertion, keyId: "k\(index)",
                userHash: user, ipHash: nil, deviceHash: index < 2 ? device : nil, decision: decision, ruleDecision: decision,
                score: index == 0 ? 100 : 0, ruleSetVersion: "sha256:0011223344556677", fired: index == 0 ? "blocked-user" : "",
                signals: #"{"key.status":"active","request.action":"act\#(index)\#(index == 1 ? #"\u001b[31m"# : "")"}"#
            ))
        }
        let logged = entries
        let environment = try await Self.store { store in try await store.appendDecisions(logged) }
        let byUser = try await CommandLineRunner.run(["decisions", "--app", Self.appId, "--user", "cli-user", "--limit", "3", "--json"], environment: environment)
        #expect(byUser.status == 0, "\(byUser.standardError)")
        let page = try #require(byUser.json["decisions"] as? [[String: Any]])
        #expect(page.compactMap { $0["keyId"] as? String } == ["k0", "k1", "k2"])
        #expect((page.first?["reasons"] as? [[String: Any]])?.first?["ruleId"] as? String == "blocked-user")
        let next = try #require(byUser.json["next"] as? String)
        let rest = try await CommandLineRunner.run(
            ["decisions", "--app", Self.appId, "--user", "cli-user", "--limit", "3", "--cursor", next, "--json"], environment: environment
        )
        #expect((rest.json["decisions"] as? [[String: Any]])?.compactMap { $0["keyId"] as? String } == ["k3", "k4"])
        #expect(rest.json["next"] == nil)

        let byDevice = try await CommandLineRunner.run(["decisions", "--app", Self.appId, "--device", "cli-device"], environment: environment)
        #expect(byDevice.status == 0, "\(byDevice.standardError)")
        #expect(byDevice.standardOutput.contains("decisions about the device in \(Self.appId)"), "\(byDevice.standardOutput)")
        #expect(byDevice.standardOutput.contains("assertion  deny  score 100"))
        #expect(byDevice.standardOutput.contains("fired blocked-user"))
        #expect(byDevice.standardOutput.contains("signals key.status=active request.action=act0\n"), "\(byDevice.standardOutput)")
        #expect(byDevice.standardOutput.contains("request.action=act1\\u{1b}[31m"), "a control character is shown escaped")
        #expect(!byDevice.standardOutput.contains("cli-device"), "the device id is not repeated")
        #expect(!byDevice.standardOutput.contains("k2"))

        let refusedArguments: [[String]] = [
            ["--user", "cli-user", "--device", "cli-device"], [], ["--user", "cli-user", "--from", "2026-01-01T00:00:00Z", "--to", "2026-03-01T00:00:00Z"],
            ["--user", "cli-user", "--to", "yesterday"], ["--user", "cli-user", "--limit", "0"], ["--user", "cli-user", "--cursor", "x"],
        ]
        for arguments in refusedArguments {
            let refused = try await CommandLineRunner.run(["decisions", "--app", Self.appId] + arguments, environment: environment)
            #expect(refused.status == 2, "\(arguments): \(refused.status) \(refused.standardError)")
        }
        let unknownApp = try await CommandLineRunner.run(["decisions", "--app", "ABCDE12345.com.example.none", "--user", "u"], environment: environment)
        #expect(unknownApp.status == 2, "\(unknownApp.standardError)")
        var unusable = ServerProcess.environment(databaseURL: nil, sqlitePath: "/nonexistent-\(UUID().uuidString)/store.sqlite")
        unusable["ATTESTGUARD_DATABASE_URL"] = nil
        let noStore = try await CommandLineRunner.run(["decisions", "--app", Self.appId, "--user", "u"], environment: unusable)
        #expect(noStore.status == 3, "\(noStore.standardError)")
    }

    @Test("on SQLite, both commands read the store while another process holds it and keeps writing")
    func besideTheServer() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("history-held-\(UUID().uuidString).sqlite").path
        let held = try await TestStore.sqlite(path: path)
        let user = Self.hash("user", "held-user")
        func entry(_ index: Int) -> DecisionLogEntry {
            DecisionLogEntry(
                appId: Self.appId, decidedAt: Date().addingTimeInterval(-Double(index)), endpoint: .score, keyId: "held\(index)", userHash: user,
                ipHash: nil, decision: .allow, ruleDecision: .allow, score: 0, ruleSetVersion: "sha256:0011223344556677", fired: "", signals: "{}"
            )
        }
        do {
            try await held.store.appendDecisions([entry(1), entry(2)])
            var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: path)
            environment["ATTESTGUARD_DATABASE_URL"] = nil
            let read = try await CommandLineRunner.run(["decisions", "--app", Self.appId, "--user", "held-user", "--json"], environment: environment)
            #expect(read.status == 0, "\(read.standardError)")
            #expect((read.json["decisions"] as? [[String: Any]])?.count == 2)
            // The holder keeps writing; the next read sees it.
            try await held.store.appendDecisions([entry(0)])
            let again = try await CommandLineRunner.run(["decisions", "--app", Self.appId, "--user", "held-user", "--json"], environment: environment)
            #expect((again.json["decisions"] as? [[String: Any]])?.count == 3, "\(again.standardError)")
            let history = try await CommandLineRunner.run(
                ["keys", "history", "--app", Self.appId, "--key", String(repeating: "A", count: 43)], environment: environment
            )
            #expect(history.status == 1, "an unknown key, read beside the holder: \(history.standardError)")
        } catch {
            await held.close()
            throw error
        }
        await held.close()
    }
}
