import AttestTestSupport
import Foundation
import PostgresNIO
import AttestGuardStore
import AttestGuardPostgres
import Testing

/// 64 concurrent tasks race for one challenge or one counter value: exactly one may win. The read-then-write
/// variant below shows the same test catching a store that checks first and writes second.
@Suite("Store races")
struct StoreRaceTests {
    static let contenders = 64

    @Test("64 submissions of one assertion: one commit, 63 already accepted", arguments: StoreBackend.available)
    func oneAssertionOneWinner(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 16) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            let challenge = StoreFixtures.challenge(keyId: key.keyId)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let commit = AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 1, requestContext: nil)
            let outcomes = try await race { _ in try await test.store.commitAssertion(commit) }
            #expect(outcomes.filter { $0.isCommitted }.count == 1)
            #expect(outcomes.filter { $0.rejectionCode == .assertionAlreadyAccepted }.count == Self.contenders - 1)
        }
    }

    @Test("64 assertions with the same counter and their own challenges: one advances it", arguments: StoreBackend.available)
    func oneCounterOneWinner(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 16) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            var commits: [AssertionCommit] = []
            for _ in 0..<Self.contenders {
                let challenge = StoreFixtures.challenge(keyId: key.keyId)
                _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
                commits.append(AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 9, requestContext: nil))
            }
            let prepared = commits
            let outcomes = try await race { index in try await test.store.commitAssertion(prepared[index]) }
            #expect(outcomes.filter { $0.isCommitted }.count == 1)
            #expect(outcomes.filter { $0.rejectionCode == .counterNotIncreasing }.count == Self.contenders - 1)
            #expect(try await test.store.key(appId: key.appId, keyId: key.keyId)?.counter == 9)
            // The losers spent nothing: their challenges are still unused.
            var unused = 0
            for commit in prepared where try await test.store.challenge(id: commit.claim.challengeId)?.consumedAt == nil { unused += 1 }
            #expect(unused == Self.contenders - 1)
        }
    }

    @Test("64 rising counters race on one key, facts read in the commit: the accepted ones chain their previous counters", arguments: StoreBackend.available)
    func risingCountersChain(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 16) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            var commits: [AssertionCommit] = []
            for counter in 1...Self.contenders {
                let challenge = StoreFixtures.challenge(keyId: key.keyId)
                _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
                commits.append(AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: Int64(counter), requestContext: nil))
            }
            let prepared = commits
            let query = ScoringFactsQuery(appId: key.appId, keyId: key.keyId)
            let outcomes = try await race { index in
                (prepared[index], try await test.store.commitAssertion(prepared[index], readingFacts: query))
            }
            // Each accepted commit read, under the key's lock, the counter the accepted one before it wrote.
            let accepted = outcomes.compactMap { commit, answer -> (counter: Int64, previous: Int64, facts: ScoringFacts?)? in
                guard case .committed(let previous) = answer.0 else { return nil }
                return (commit.counter, previous, answer.1)
            }.sorted { $0.counter < $1.counter }
            #expect(!accepted.isEmpty)
            #expect(accepted.map(\.previous) == [0] + accepted.dropLast().map(\.counter))
            #expect(accepted.allSatisfy { $0.facts?.key != nil })
            #expect(try await test.store.key(appId: key.appId, keyId: key.keyId)?.counter == accepted.last?.counter)
            // The refused ones say why and spent nothing.
            let refused = outcomes.filter { !$0.1.0.isCommitted }
            #expect(refused.allSatisfy { $0.1.0.rejectionCode == .counterNotIncreasing && $0.1.1 == nil })
            var unused = 0
            for (commit, _) in refused where try await test.store.challenge(id: commit.claim.challengeId)?.consumedAt == nil { unused += 1 }
            #expect(unused == refused.count)
            #expect(accepted.count + refused.count == Self.contenders)
        }
    }

    @Test("64 keys of one user race for one assertion challenge bound to no key: one commits", arguments: StoreBackend.available)
    func oneUnboundChallengeOneKey(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 16) { (test: TestStore) async throws in
            var keys: [KeyRecord] = []
            for index in 0..<Self.contenders {
                keys.append(try await StoreFixtures.register(StoreFixtures.key(deviceId: "device-\(index)"), in: test.store))
            }
            let challenge = StoreFixtures.challenge(keyId: nil)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let registered = keys
            let outcomes = try await race { index in
                try await test.store.commitAssertion(AssertionCommit(claim: StoreFixtures.claim(challenge, key: registered[index]), counter: 1, requestContext: nil))
            }
            #expect(outcomes.filter { $0.isCommitted }.count == 1)
            #expect(outcomes.filter { $0.rejectionCode == .challengeUsed }.count == Self.contenders - 1)
            // Only the winner's counter moved.
            var advanced = 0
            for key in registered where try await test.store.key(appId: key.appId, keyId: key.keyId)?.counter == 1 { advanced += 1 }
            #expect(advanced == 1)
        }
    }

    @Test("a valid challenge with a stale counter is refused and stays unused", arguments: StoreBackend.available)
    func staleCounterLeavesTheChallenge(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            #expect(try await StoreFixtures.assert(key, counter: 5, in: test.store).isCommitted)
            let challenge = StoreFixtures.challenge(keyId: key.keyId)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let stale = AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 5, requestContext: nil)
            #expect(try await test.store.commitAssertion(stale).rejectionCode == .counterNotIncreasing)
            #expect(try await test.store.challenge(id: challenge.id)?.consumedAt == nil)
            let fresh = AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 6, requestContext: nil)
            #expect(try await test.store.commitAssertion(fresh) == .committed(previousCounter: 5))
        }
    }

    @Test("64 keys racing for one attestation challenge: one registers", arguments: StoreBackend.available)
    func oneChallengeOneKey(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 16) { (test: TestStore) async throws in
            let challenge = StoreFixtures.challenge(purpose: .attestation)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let outcomes = try await race { _ in
                let key = StoreFixtures.key()
                return try await test.store.registerKey(
                    KeyRegistration(claim: StoreFixtures.claim(challenge, key: key), key: key, receipt: StoreFixtures.receipt(for: key))
                )
            }
            #expect(outcomes.filter { $0.rejectionCode == nil }.count == 1)
            #expect(outcomes.filter { $0.rejectionCode == .challengeUsed }.count == Self.contenders - 1)
        }
    }

    @Test("the same race against a read-then-write consumer finds several winners", arguments: StoreBackend.postgresOnly)
    func readThenWriteLoses(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 16) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let challenge = StoreFixtures.challenge()
            _ = try await store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let winners = try await race { _ in
                try await ReadThenWriteConsumer(client: try await store.client()).consume(challengeId: challenge.id, at: StoreFixtures.now)
            }.filter { $0 }.count
            #expect(winners > 1, "a read-then-write consumer should let more than one of \(Self.contenders) tasks win")
        }
    }

    /// Starts all contenders at once and collects their results.
    private func race<Result: Sendable>(_ contender: @escaping @Sendable (Int) async throws -> Result) async throws -> [Result] {
        try await withThrowingTaskGroup(of: Result.self) { group in
            for index in 0..<Self.contenders {
                group.addTask { try await contender(index) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}

/// Deliberately wrong: reads whether the challenge is unused, then writes, as two statements on separate pool
/// connections with a pause between. It exists to prove the race tests can fail.
struct ReadThenWriteConsumer {
    let client: PostgresClient

    func consume(challengeId: Data, at: Date) async throws -> Bool {
        let rows = try await client.query("SELECT consumed_at FROM challenges WHERE id = \(challengeId)").collect()
        guard let row = rows.first, try row.decode(Date?.self) == nil else { return false }
        try await Task.sleep(for: .milliseconds(20))
        try await client.query("UPDATE challenges SET consumed_at = \(at) WHERE id = \(challengeId)")
        return true
    }
}
