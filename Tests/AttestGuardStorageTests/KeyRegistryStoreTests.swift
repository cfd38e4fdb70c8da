import AttestTestSupport
import Foundation
import AttestGuardStore
import AttestVocabulary
import Testing

@Suite("Key registration in the store")
struct KeyRegistryStoreTests {
    @Test("registering stores the key at counter 0 with its receipt and its challenge's digest, and consumes the challenge", arguments: StoreBackend.available)
    func registerStoresKeyAndReceipt(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = StoreFixtures.key()
            let challenge = StoreFixtures.challenge(purpose: .attestation, userId: key.userId)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let outcome = try await test.store.registerKey(
                KeyRegistration(claim: StoreFixtures.claim(challenge, key: key), key: key, receipt: StoreFixtures.receipt(for: key))
            )
            #expect(outcome == .registered(key, supersededKeyIds: []))
            var stored = try #require(try await test.store.key(appId: key.appId, keyId: key.keyId))
            #expect(stored.registrationChallengeSHA256 == ChallengeClaim.digest(of: challenge.id))
            #expect(stored.registrationChallengeExpiresAt == challenge.expiresAt)
            stored.registrationChallengeSHA256 = nil
            stored.registrationChallengeExpiresAt = nil
            #expect(stored == key)
            #expect(try await test.store.receipt(appId: key.appId, keyId: key.keyId) == StoreFixtures.receipt(for: key))
            #expect(try await test.store.challenge(id: challenge.id)?.consumedAt != nil)
        }
    }

    @Test("a key keeps the validation category and bundle version it was attested with, any 32-bit category included", arguments: StoreBackend.available)
    func registerKeepsTheAttestedBuild(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            for (index, build) in [(ValidationCategory?.some(.appStore), "4.2.1"), (.unknown(4_000_000_000), "1"), (nil, nil)].enumerated() {
                var key = StoreFixtures.key(deviceId: "build-\(index)")
                key.validationCategory = build.0
                key.bundleVersion = build.1
                let challenge = StoreFixtures.challenge(purpose: .attestation, userId: key.userId)
                _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
                _ = try await test.store.registerKey(
                    KeyRegistration(claim: StoreFixtures.claim(challenge, key: key), key: key, receipt: StoreFixtures.receipt(for: key))
                )
                let stored = try #require(try await test.store.key(appId: key.appId, keyId: key.keyId))
                #expect(stored.validationCategory == build.0)
                #expect(stored.bundleVersion == build.1)
            }
        }
    }

    @Test("the same submission again is idempotent until its challenge expires; another challenge, user or attestation is refused",
          arguments: StoreBackend.available)
    func reRegistration(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = StoreFixtures.key()
            let challenge = StoreFixtures.challenge(purpose: .attestation, userId: key.userId)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            func register(_ candidate: KeyRecord, with challenge: NewChallenge, at instant: Date = StoreFixtures.now) async throws -> KeyRegistrationOutcome {
                try await test.store.registerKey(
                    KeyRegistration(
                        claim: StoreFixtures.claim(challenge, key: candidate, at: instant),
                        key: candidate,
                        receipt: StoreFixtures.receipt(for: candidate)
                    )
                )
            }
            #expect(try await register(key, with: challenge) == .registered(key, supersededKeyIds: []))
            let stored = try #require(try await test.store.key(appId: key.appId, keyId: key.keyId))
            #expect(try await register(key, with: challenge) == .alreadyRegistered(stored))
            let lastMoment = challenge.expiresAt.addingTimeInterval(StoreFixtures.skew.timeInterval - 1)
            #expect(try await register(key, with: challenge, at: lastMoment) == .alreadyRegistered(stored))
            let tooLate = challenge.expiresAt.addingTimeInterval(StoreFixtures.skew.timeInterval + 1)
            #expect(try await register(key, with: challenge, at: tooLate).rejectionCode == .challengeUsed)

            let another = StoreFixtures.challenge(purpose: .attestation, userId: key.userId)
            _ = try await test.store.issueChallenge(another, quota: StoreFixtures.quota)
            #expect(try await register(key, with: another).rejectionCode == .challengeUsed)

            var otherUser = key
            otherUser.userId = "user-2"
            #expect(try await register(otherUser, with: challenge).rejectionCode == .keyAlreadyRegistered)

            var otherAttestation = key
            otherAttestation.attestationSHA256 = StoreFixtures.randomId()
            #expect(try await register(otherAttestation, with: challenge).rejectionCode == .keyAlreadyRegistered)
        }
    }

    @Test("a challenge registers at most one key", arguments: StoreBackend.available)
    func challengeRegistersOnce(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let challenge = StoreFixtures.challenge(purpose: .attestation)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            var outcomes: [KeyRegistrationOutcome] = []
            for _ in 0..<2 {
                let key = StoreFixtures.key()
                outcomes.append(
                    try await test.store.registerKey(
                        KeyRegistration(claim: StoreFixtures.claim(challenge, key: key), key: key, receipt: StoreFixtures.receipt(for: key))
                    )
                )
            }
            #expect(outcomes[0].rejectionCode == nil)
            #expect(outcomes[1].rejectionCode == .challengeUsed)
        }
    }

    @Test("an assertion challenge cannot register a key", arguments: StoreBackend.available)
    func purposeIsChecked(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let challenge = StoreFixtures.challenge(purpose: .assertion)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let key = StoreFixtures.key()
            let outcome = try await test.store.registerKey(
                KeyRegistration(
                    claim: StoreFixtures.claim(challenge, key: key, purpose: .attestation),
                    key: key,
                    receipt: StoreFixtures.receipt(for: key)
                )
            )
            #expect(outcome.rejectionCode == .challengeMismatch)
            #expect(try await test.store.key(appId: key.appId, keyId: key.keyId) == nil)
        }
    }

    @Test("a new key for the same user and device supersedes the old one", arguments: StoreBackend.available)
    func supersedeByDevice(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let first = try await StoreFixtures.register(StoreFixtures.key(deviceId: "phone"), in: test.store)
            let otherDevice = try await StoreFixtures.register(StoreFixtures.key(deviceId: "tablet"), in: test.store)
            let noDevice = try await StoreFixtures.register(StoreFixtures.key(deviceId: nil), in: test.store)
            let second = StoreFixtures.key(deviceId: "phone")
            let challenge = StoreFixtures.challenge(purpose: .attestation)
            _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let outcome = try await test.store.registerKey(
                KeyRegistration(claim: StoreFixtures.claim(challenge, key: second), key: second, receipt: StoreFixtures.receipt(for: second))
            )
            #expect(outcome == .registered(second, supersededKeyIds: [first.keyId]))
            let old = try #require(try await test.store.key(appId: first.appId, keyId: first.keyId))
            #expect(old.status == .superseded)
            #expect(old.supersededBy == second.keyId)
            #expect(try await test.store.key(appId: otherDevice.appId, keyId: otherDevice.keyId)?.status == .active)
            #expect(try await test.store.key(appId: noDevice.appId, keyId: noDevice.keyId)?.status == .active)
            #expect(try await StoreFixtures.assert(old, counter: 1, in: test.store).rejectionCode == .keySuperseded)
        }
    }

    @Test("revocation is final and idempotent", arguments: StoreBackend.available)
    func revoke(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            let later = StoreFixtures.now.addingTimeInterval(60)
            let revoked = try #require(try await test.store.revokeKey(appId: key.appId, keyId: key.keyId, at: later))
            #expect(revoked.status == .revoked)
            #expect(revoked.statusChangedAt == later)
            let again = try await test.store.revokeKey(appId: key.appId, keyId: key.keyId, at: later.addingTimeInterval(60))
            #expect(again == revoked)
            #expect(try await test.store.revokeKey(appId: key.appId, keyId: StoreFixtures.randomId(), at: later) == nil)
            #expect(try await StoreFixtures.assert(key, counter: 1, in: test.store).rejectionCode == .keyRevoked)
        }
    }
}
