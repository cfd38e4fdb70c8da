import AttestTestSupport
import Foundation
@testable import AttestGuardStore
import Testing

/// A transaction that rolls back is explained from the rows read back afterwards, the same way on both backends;
/// when the rows no longer show why (they changed again in between), the caller gets a `StoreError`.
@Suite("Outcomes of rolled-back state changes")
struct RollbackOutcomeTests {
    @Test("an assertion rollback that no condition explains is a StoreError", arguments: StoreBackend.available)
    func unexplainedAssertionRollback(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            let challenge = StoreFixtures.challenge(purpose: .assertion, userId: key.userId, keyId: key.keyId)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            // The challenge is unused and the key's counter is below 1: nothing explains a rollback.
            let commit = AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 1, requestContext: nil)
            for step in [RollbackSignal.Step.challenge, .counter] {
                let error = await #expect(throws: StoreError.self) {
                    try await test.store.assertionOutcome(rolledBackAt: RollbackSignal(step: step), commit)
                }
                #expect(error?.code == .queryFailed)
            }
            // Once a condition does fail, the same rollback is that condition's rejection.
            #expect(try await test.store.commitAssertion(commit) .isCommitted == true)
            var replay = commit
            replay.counter = 2
            let outcome = try await test.store.assertionOutcome(rolledBackAt: RollbackSignal(step: .challenge), replay)
            #expect(outcome.rejectionCode == .challengeUsed)
        }
    }

    @Test("a registration rollback that no condition explains is a StoreError", arguments: StoreBackend.available)
    func unexplainedRegistrationRollback(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = StoreFixtures.key()
            let challenge = StoreFixtures.challenge(purpose: .attestation, userId: key.userId)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let registration = KeyRegistration(
                claim: StoreFixtures.claim(challenge, key: key), key: key, receipt: StoreFixtures.receipt(for: key)
            )
            // The key is not registered and the challenge is unused: nothing explains a rollback.
            for step in [RollbackSignal.Step.keyExists, .challenge] {
                let error = await #expect(throws: StoreError.self) {
                    try await test.store.registrationOutcome(rolledBackAt: RollbackSignal(step: step), registration)
                }
                #expect(error?.code == .queryFailed)
            }
            // Registered meanwhile: the key-exists rollback answers the registered key.
            _ = try await test.store.registerKey(registration)
            let outcome = try await test.store.registrationOutcome(rolledBackAt: RollbackSignal(step: .keyExists), registration)
            guard case .alreadyRegistered(let existing) = outcome else {
                Issue.record("expected the registered key, got \(outcome)")
                return
            }
            #expect(existing.keyId == key.keyId)
        }
    }
}
