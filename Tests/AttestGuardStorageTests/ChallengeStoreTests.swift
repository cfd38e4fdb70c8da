import AttestTestSupport
import Foundation
import AttestGuardStorage
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
            #expect(try await test.store.issueChallenge(fourth, quota: quota) == .overQuota(retryAt: start.addingTimeInterval(60)))
            #expect(try await test.store.challenge(id: fourth.id) == nil)

            let otherUser = StoreFixtures.challenge(userId: "user-2", issuedAt: start.addingTimeInterval(10))
            #expect(try await test.store.issueChallenge(otherUser, quota: quota) == .issued)
            let userless = StoreFixtures.challenge(userId: nil, issuedAt: start.addingTimeInterval(10))
            #expect(try await test.store.issueChallenge(userless, quota: quota) == .issued)

            let later = StoreFixtures.challenge(issuedAt: start.addingTimeInterval(60.5))
            #expect(try await test.store.issueChallenge(later, quota: quota) == .issued)
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
