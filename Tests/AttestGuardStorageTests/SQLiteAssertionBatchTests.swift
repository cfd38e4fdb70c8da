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

    @Test("rounds name a key or a challenge once each and keep the order of two that share one")
    func rounds() {
        let (a, b, c) = (Data([1]), Data([2]), Data([3]))
        // 0 and 1 share challenge a, 1 and 2 key b: each waits for the one before; 3 shares nothing with 0.
        let subjects = [(key: a, challenge: a), (key: b, challenge: a), (key: b, challenge: b), (key: c, challenge: c), (key: a, challenge: b)]
        #expect(SQLiteRiskStore.rounds(of: [0, 1, 2, 3], naming: subjects) == [[0, 3], [1], [2]])
        #expect(SQLiteRiskStore.rounds(of: [3, 2, 4, 0], naming: subjects) == [[3, 2], [4], [0]], "4 after 2's challenge, 0 after 4's key")
        #expect(SQLiteRiskStore.rounds(of: [0, 1], naming: [(key: a, challenge: b), (key: b, challenge: a)]) == [[0, 1]], "a key id equal to a challenge id")
        #expect(SQLiteRiskStore.rounds(of: [], naming: subjects).isEmpty)
    }

    @Test("a batch answers and writes as its assertions one at a time do: random batches of shared keys, shared challenges, refusals")
    func batchesAsOneAtATime() async throws {
        try await withTestStore(.sqlite) { (batched: TestStore) async throws in
            try await withTestStore(.sqlite) { (alone: TestStore) async throws in
                let stores = [try #require(batched.store as? SQLiteRiskStore), try #require(alone.store as? SQLiteRiskStore)]
                // Seeded, with the seed in every failure's message and ids that follow from it, so that a failing batch
                // can be run again (the batch orders its assertions by key id).
                let seed = UInt64.random(in: 0...UInt64.max)
                var generator = SplitMix64(seed: seed)
                func id() -> Data { Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
                var keys = (0..<5).map { StoreFixtures.key(userId: $0 == 3 ? "user-2" : "user-1", deviceId: "device-\($0)") }
                for index in keys.indices { keys[index].keyId = id() }
                for store in stores {
                    for key in keys.prefix(4) { _ = try await StoreFixtures.register(key, in: store) }
                    _ = try await store.revokeKey(appId: keys[2].appId, keyId: keys[2].keyId, at: StoreFixtures.now)
                }
                for round in 0..<60 {
                    // Challenges bound to a key, to none, to no user, one expired; each issued alike in both stores.
                    var challenges = (0..<6).map { index in
                        StoreFixtures.challenge(userId: index == 4 ? nil : "user-1", keyId: index < 3 ? keys[index].keyId : nil)
                    }
                    challenges.append(StoreFixtures.challenge(issuedAt: StoreFixtures.now.addingTimeInterval(-3_600), ttl: 60))
                    for index in challenges.indices { challenges[index].id = id() }
                    for store in stores {
                        for challenge in challenges { _ = try await store.issueChallenge(challenge, quota: StoreFixtures.quota) }
                    }
                    let commits = (0..<Int.random(in: 1...12, using: &generator)).map { _ in
                        let key = keys.randomElement(using: &generator)!
                        let challenge = challenges.randomElement(using: &generator)!
                        return commit(key, counter: Int64(round * 3 + Int.random(in: 0...4, using: &generator)), challenge: challenge)
                    }
                    let together = try await stores[0].commitBatch(commits).map { try $0.get() }
                    let order = commits.indices.sorted { AssertionCommit.precedesInBatch(commits[$0], commits[$1], arrival: $0, $1) }
                    var separately = [ClaimedAssertion?](repeating: nil, count: commits.count)
                    for index in order { separately[index] = try await stores[1].commitBatch([commits[index]])[0].get() }
                    for index in commits.indices {
                        #expect(Self.summary(together[index]) == Self.summary(separately[index]!), "seed \(seed), round \(round), assertion \(index) of \(commits.count)")
                    }
                    for key in keys {
                        let counters = try await stores.asyncMap { try await $0.key(appId: key.appId, keyId: key.keyId)?.counter }
                        #expect(counters[0] == counters[1], "seed \(seed), round \(round)")
                    }
                    for challenge in challenges {
                        let consumed = try await stores.asyncMap { try await $0.challenge(id: challenge.id).map { "\($0.consumedCounter ?? -1) \($0.consumedByKeyId?.base64EncodedString() ?? "-") \(String(describing: $0.consumedAt))" } }
                        #expect(consumed[0] == consumed[1], "seed \(seed), round \(round)")
                    }
                }
            }
        }
    }

    /// What an answer says, comparable across stores: the previous counter and the key's row, or nil (refused).
    private static func summary(_ answer: ClaimedAssertion) -> String? {
        guard case .committed(let previous, let key) = answer else { return nil }
        return "\(previous) \(key.appId) \(key.keyId.base64EncodedString()) \(key.counter) \(String(describing: key.lastAssertionAt))"
    }
}

extension Array {
    /// `transform` of each element, one after another.
    fileprivate func asyncMap<Result>(_ transform: (Element) async throws -> Result) async rethrows -> [Result] {
        var results: [Result] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
