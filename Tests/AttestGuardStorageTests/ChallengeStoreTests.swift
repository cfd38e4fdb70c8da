import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

@Suite("Challenges in the store")
struct ChallengeStoreTests {
    @Test("an issued challenge reads back unconsumed", arguments: StoreBackend.available)
    func issuedChallengeReadsBack(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let challenge = StoreFixtures.challenge(keyId: StoreFixtures.randomId())
            #expect(try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota) == .issued)
            let record = try #require(try await test.store.challenge(id: challenge.id))
            #expect(record.challenge == challenge)
            #expect(record.consumedAt == nil)
            #expect(try await test.store.challenge(id: StoreFixtures.randomId()) == nil)
        }
    }

    @Test("a user over the quota waits until the oldest challenge leaves the window", arguments: StoreBackend.available)
    func quotaPerUser(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let quota = ChallengeQuota(maximumPerUser: 3, window: .seconds(60))
            let start = StoreFixtures.now
            for second in 0..<3 {
                let challenge = StoreFixtures.challenge(issuedAt: start.addingTimeInterval(Double(second)))
                #expect(try await test.store.issueChallenge(challenge, quota: quota) == .issued)
            }
            let fourth = StoreFixtures.challenge(issuedAt: start.addingTimeInterval(10))
            #expect(try await test.store.issueChallenge(fourth, quota: quota) == .overQuota(retryAt: start.addingTimeInterval(60), limit: .perUser))
            #expect(try await test.store.challenge(id: fourth.id) == nil)

            let otherUser = StoreFixtures.challenge(userId: "user-2", issuedAt: start.addingTimeInterval(10))
            #expect(try await test.store.issueChallenge(otherUser, quota: quota) == .issued)
            let userless = StoreFixtures.challenge(userId: nil, issuedAt: start.addingTimeInterval(10))
            #expect(try await test.store.issueChallenge(userless, quota: quota) == .issued)

            let later = StoreFixtures.challenge(issuedAt: start.addingTimeInterval(60.5))
            #expect(try await test.store.issueChallenge(later, quota: quota) == .issued)
        }
    }

    @Test("challenges without a user are limited per client address and, unexpired, per app", arguments: StoreBackend.available)
    func unboundLimits(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let quota = ChallengeQuota(maximumPerUser: 100, window: .seconds(60), maximumUnboundPerClient: 3, maximumUnboundPerApp: 5)
            let start = StoreFixtures.now
            func issue(client: String?, at second: TimeInterval, userId: String? = nil) async throws -> ChallengeIssueOutcome {
                var challenge = StoreFixtures.challenge(userId: userId, issuedAt: start.addingTimeInterval(second), ttl: 300)
                challenge.clientHash = client
                return try await test.store.issueChallenge(challenge, quota: quota)
            }
            for second in 0..<3 { #expect(try await issue(client: "client-1", at: Double(second)) == .issued) }
            #expect(try await issue(client: "client-1", at: 10) == .overQuota(retryAt: start.addingTimeInterval(60), limit: .unboundPerClient))
            #expect(try await issue(client: "client-2", at: 10) == .issued)
            #expect(try await issue(client: nil, at: 11) == .issued)
            #expect(try await issue(client: "client-3", at: 12) == .overQuota(retryAt: start.addingTimeInterval(300), limit: .unboundPerApp),
                    "five unexpired challenges without a user: the app's cap")
            #expect(try await issue(client: "client-3", at: 12, userId: "user-9") == .issued, "challenges for a user are not capped per app")
            #expect(try await issue(client: "client-1", at: 301) == .issued, "the first ones expired")
        }
    }

    @Test("purging removes only challenges that expired before the cutoff", arguments: StoreBackend.available)
    func purge(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let old = StoreFixtures.challenge(issuedAt: StoreFixtures.now.addingTimeInterval(-3_600))
            let fresh = StoreFixtures.challenge()
            for challenge in [old, fresh] {
                _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            }
            #expect(try await test.store.purgeChallenges(expiredBefore: StoreFixtures.now.addingTimeInterval(-60)) == 1)
            #expect(try await test.store.challenge(id: old.id) == nil)
            #expect(try await test.store.challenge(id: fresh.id) != nil)
        }
    }
}
