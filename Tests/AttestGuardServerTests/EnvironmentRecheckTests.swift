import AttestTestSupport
import Foundation
import Testing

/// An app's environments hold at every assertion, not only at attestation.
@Suite("HTTP: environments checked again at assertion")
struct EnvironmentRecheckTests {
    @Test("a development key stops asserting once its app accepts production only")
    func developmentKeyAfterTheAppDropsDevelopment() async throws {
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-environments-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: database) }
        let shared = ["ATTESTGUARD_DATABASE_SQLITE_PATH": database]
        try await ServerHarness.run(.sqlite, extraEnvironment: shared) { (api: APIClient) async throws in
            var alice = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(alice).status == 201)
            #expect(try await api.assert(&alice).status == 200)
        }
        // The same key on the same store, after the configuration dropped development. (A fresh copy of the simulated
        // key signs with counter 1 again: the environment is checked before the counter, which would refuse it too.)
        let productionOnly = shared.merging(["ATTESTGUARD_APPS_MAIN_ENVIRONMENTS": "production"]) { _, new in new }
        try await ServerHarness.run(.sqlite, extraEnvironment: productionOnly) { api in
            var alice = SimulatedApps.make(user: "alice", device: "alice-phone")
            let refused = try await api.assert(&alice)
            #expect(refused.status == 422 && refused.errorCode == "environment_not_allowed", "\(refused.text)")
        }
    }
}
