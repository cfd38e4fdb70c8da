import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import Foundation
import Testing

/// Once an assertion or attestation is committed, the answer is a verdict whatever scoring does: a store failure
/// gives the app's `onStoreError` decision, any other failure `review` with the reason `scoring_failed`. An error
/// there would spend the challenge and counter and then tell the client to retry into a 409.
@Suite("HTTP: a committed request always gets a verdict")
struct CommittedScoringTests {
    static let storeDown = StoreError(.unavailable, "injected: the database stopped answering")
    static let scoringBroke = EngineError(.invalidInput, code: .invalidAttribute, "injected: a signal could not be read")

    @Test("a fault while scoring an accepted assertion: 200 with the fallback verdict, counter advanced", arguments: ServerBackend.available)
    func assertionScoringFaults(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, wrapStore: { FaultyScoringStore($0) }) { api in
            let store = try #require(api.engine?.store as? FaultyScoringStore)
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)

            for (fault, decision, reason) in [(Self.storeDown as any Error, "review", "store_unavailable"), (Self.scoringBroke, "review", "scoring_failed")] {
                store.failScoring(with: fault)
                let reply = try await api.assert(&app)
                store.failScoring(with: nil)
                #expect(reply.status == 200, "\(reply.text)")
                let verdict = try #require(reply["verdict"] as? [String: Any], "\(reply.text)")
                #expect(verdict["decision"] as? String == decision)
                let reasons = try #require(verdict["reasons"] as? [[String: Any]])
                #expect(reasons.map { $0["ruleId"] as? String } == [reason])
            }
            let stored = try #require(try await api.engine?.store.key(appId: ServerHarness.appId, keyId: Data(app.key.keyId)))
            #expect(stored.counter == 2, "both assertions committed")
        }
    }

    @Test("a fault while scoring a registered key: 201 with a review verdict", arguments: ServerBackend.available)
    func attestationScoringFault(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, wrapStore: { FaultyScoringStore($0) }) { api in
            let store = try #require(api.engine?.store as? FaultyScoringStore)
            store.failScoring(with: Self.scoringBroke)
            let reply = try await api.attest(SimulatedApps.make(user: "bob", device: "bob-phone"))
            #expect(reply.status == 201, "\(reply.text)")
            let verdict = try #require(reply["verdict"] as? [String: Any], "\(reply.text)")
            #expect(verdict["decision"] as? String == "review")
            #expect((verdict["reasons"] as? [[String: Any]])?.first?["ruleId"] as? String == "scoring_failed")
        }
    }
}
