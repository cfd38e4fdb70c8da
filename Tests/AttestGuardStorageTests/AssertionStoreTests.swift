import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

@Suite("Committing assertions in the store")
struct AssertionStoreTests {
    @Test("counters advance strictly; each rejection names its cause", arguments: StoreBackend.available)
    func counterAdvances(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            #expect(try await StoreFixtures.assert(key, counter: 1, in: test.store) .isCommitted == true)
            #expect(try await StoreFixtures.assert(key, counter: 5, in: test.store) .isCommitted == true)
            #expect(try await StoreFixtures.assert(key, counter: 5, in: test.store).rejectionCode == .counterNotIncreasing)
            #expect(try await StoreFixtures.assert(key, counter: 3, in: test.store).rejectionCode == .counterNotIncreasing)
            let stored = try #require(try await test.store.key(appId: key.appId, keyId: key.keyId))
            #expect(stored.counter == 5)
            #expect(stored.lastAssertionAt == StoreFixtures.now)
        }
    }

    @Test("the same assertion twice is already accepted; its challenge cannot serve another", arguments: StoreBackend.available)
    func replay(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            let challenge = StoreFixtures.challenge(keyId: key.keyId)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let commit = AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 1, requestContext: nil)
            #expect(try await test.store.commitAssertion(commit) .isCommitted == true)
            #expect(try await test.store.commitAssertion(commit).rejectionCode == .assertionAlreadyAccepted)
            var next = commit
            next.counter = 2
            #expect(try await test.store.commitAssertion(next).rejectionCode == .challengeUsed)
            let record = try #require(try await test.store.challenge(id: challenge.id))
            #expect(record.consumedCounter == 1)
            #expect(record.consumedByKeyId == key.keyId)
        }
    }

    @Test("challenge conditions: expiry with skew, app, purpose, user, key, existence", arguments: StoreBackend.available)
    func challengeConditions(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            let other = try await StoreFixtures.register(StoreFixtures.key(userId: "user-2"), in: test.store)
            func commit(
                _ challenge: NewChallenge,
                key: KeyRecord,
                appId: String = StoreFixtures.appId,
                at: Date = StoreFixtures.now,
                issue: Bool = true
            ) async throws -> StoreRejection.Code? {
                if issue { _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota) }
                let claim = StoreFixtures.claim(challenge, key: key, appId: appId, purpose: .assertion, at: at)
                return try await test.store.commitAssertion(AssertionCommit(claim: claim, counter: 1, requestContext: nil)).rejectionCode
            }
            let expiresAt = StoreFixtures.now.addingTimeInterval(300)
            // Within the skew after expiry: still accepted. Beyond it: expired.
            #expect(try await commit(StoreFixtures.challenge(), key: key, at: expiresAt.addingTimeInterval(119)) == nil)
            #expect(try await commit(StoreFixtures.challenge(), key: key, at: expiresAt.addingTimeInterval(121)) == .challengeExpired)
            #expect(try await commit(StoreFixtures.challenge(appId: StoreFixtures.otherAppId), key: key) == .challengeMismatch)
            #expect(try await commit(StoreFixtures.challenge(purpose: .attestation), key: key) == .challengeMismatch)
            #expect(try await commit(StoreFixtures.challenge(userId: "user-1"), key: other) == .challengeMismatch)
            #expect(try await commit(StoreFixtures.challenge(userId: nil, keyId: key.keyId), key: other) == .challengeMismatch)
            #expect(try await commit(StoreFixtures.challenge(), key: key, issue: false) == .challengeNotFound)
            #expect(try await test.store.key(appId: other.appId, keyId: other.keyId)?.counter == 0)
        }
    }

    @Test("an unknown key consumes nothing", arguments: StoreBackend.available)
    func unknownKey(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let ghost = StoreFixtures.key()
            let challenge = StoreFixtures.challenge()
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let outcome = try await test.store.commitAssertion(
                AssertionCommit(claim: StoreFixtures.claim(challenge, key: ghost), counter: 1, requestContext: nil)
            )
            #expect(outcome.rejectionCode == .keyNotFound)
            #expect(try await test.store.challenge(id: challenge.id)?.consumedAt == nil)
        }
    }

    @Test("a rejected counter rolls the challenge consumption back", arguments: StoreBackend.available)
    func rollback(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            #expect(try await StoreFixtures.assert(key, counter: 7, in: test.store) .isCommitted == true)
            let challenge = StoreFixtures.challenge(keyId: key.keyId)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let stale = AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 6, requestContext: nil)
            #expect(try await test.store.commitAssertion(stale).rejectionCode == .counterNotIncreasing)
            #expect(try await test.store.challenge(id: challenge.id)?.consumedAt == nil)
            var fresh = stale
            fresh.counter = 8
            #expect(try await test.store.commitAssertion(fresh) .isCommitted == true)
        }
    }
}
