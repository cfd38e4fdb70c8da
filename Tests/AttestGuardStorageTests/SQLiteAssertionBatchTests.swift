import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStore
@testable import AttestGuardSQLite
import Testing

/// The embedded store commits a batch of assertions in one transaction (group commit): each keeps its own outcome, a
/// refused one writes nothing, and each committed one answers its key's row as its commit left it.
@Suite("Assertion batches in SQLite")
struct SQLiteAssertionBatchTests {
    private func commit(_ key: KeyRecord, counter: Int64, challenge: NewChallenge) -> AssertionCommit {
        AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: counter, requestContext: #"{"method":"POST"}"#)
    }


    @Test("a batch mixing accepted, replayed and stale assertions on several keys answers each in its order")
    func mixedBatch() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = try #require(test.store as? SQLiteRiskStore)
            let batch = try await MixedAssertionBatch(in: store)
            let (keys, first, second, stale) = (batch.keys, batch.first, batch.second, batch.stale)
            // Given out of key order, with key 2's higher counter first: the transaction sorts them, the answers don't.
            let commits = batch.commits
            let answers = try await store.commitBatch(commits).map { try $0.get() }
            #expect(answers.count == 5)
            func committed(_ index: Int) -> (previous: Int64, key: KeyRecord)? {
                guard case .committed(let previous, let key) = answers[index] else { return nil }
                return (previous, key)
            }
            // Key 2's counters 4 and 5 both commit, in counter order; the replay of `first` and the stale counter
            // change nothing.
            #expect(committed(2)?.previous == 0 && committed(2)?.key.counter == 4)
            #expect(committed(0)?.previous == 4 && committed(0)?.key.counter == 5)
            #expect(committed(4)?.previous == 0 && committed(4)?.key.keyId == keys[0].keyId)
            #expect(committed(1) == nil && committed(3) == nil)
            #expect(committed(0)?.key.lastAssertionAt == StoreFixtures.now)
            #expect(try await store.key(appId: keys[2].appId, keyId: keys[2].keyId)?.counter == 5)
            #expect(try await store.challenge(id: stale.id)?.consumedAt == nil)
            #expect(try await store.challenge(id: first.id)?.consumedCounter == 4)
            #expect(try await store.challenge(id: second.id)?.consumedCounter == 5)
            // Through the store's operation, the refused ones say why.
            #expect(try await store.commitAssertion(commits[1]).rejectionCode == .counterNotIncreasing)
            #expect(try await store.commitAssertion(commits[3]).rejectionCode == .challengeUsed)
        }
    }

    @Test("a refused assertion whose key cannot advance leaves its challenge unused; a revoked key's is refused")
    func refusedWritesNothing() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = try #require(test.store as? SQLiteRiskStore)
            let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "refused"), in: store)
            #expect(try await StoreFixtures.assert(key, counter: 3, in: store).isCommitted)
            let stale = try await StoreFixtures.issueChallenge(for: key, in: store)
            #expect(try await store.commitAssertion(commit(key, counter: 3, challenge: stale)).rejectionCode == .counterNotIncreasing)
            #expect(try await store.challenge(id: stale.id)?.consumedAt == nil)
            _ = try await store.revokeKey(appId: key.appId, keyId: key.keyId, at: StoreFixtures.now)
            let revoked = commit(key, counter: 4, challenge: stale)
            #expect(try await store.commitAssertion(revoked).rejectionCode == .keyRevoked)
            #expect(try await store.challenge(id: stale.id)?.consumedAt == nil)
            #expect(try await store.key(appId: key.appId, keyId: key.keyId)?.counter == 3)
        }
    }

    @Test("the facts read after a commit hold the key's row as the commit left it")
    func factsHoldCommittedKey() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let store = try #require(test.store as? SQLiteRiskStore)
            let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "facts"), in: store)
            let challenge = try await StoreFixtures.issueChallenge(for: key, in: store)
            let query = ScoringFactsQuery(appId: key.appId, keyId: key.keyId, receipt: true)
            let (outcome, facts) = try await store.commitAssertion(commit(key, counter: 9, challenge: challenge), readingFacts: query)
            #expect(outcome == .committed(previousCounter: 0))
            #expect(facts?.key?.counter == 9 && facts?.key?.keyId == key.keyId)
            #expect(facts?.receipt?.receiptType == .attest)
            #expect(facts?.key == (try await store.key(appId: key.appId, keyId: key.keyId)))
        }
    }
}
