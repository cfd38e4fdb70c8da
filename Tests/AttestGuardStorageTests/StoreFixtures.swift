import Foundation
import AttestGuardStore
import AttestVocabulary

/// Values for store tests: millisecond-precise instants (SQLite keeps milliseconds) and random ids.
enum StoreFixtures {
    static let appId = "ABCDE12345.com.example.attestguard"
    static let otherAppId = "ABCDE12345.com.example.other"
    static let now = Date(timeIntervalSince1970: 1_795_435_200)  // 2026-11-22T12:00:00Z
    static let skew: Duration = .seconds(120)
    static let quota = ChallengeQuota(maximumPerUser: 1_000, window: .seconds(300))

    static func randomId() -> Data {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    }

    static func challenge(
        purpose: ChallengePurpose = .assertion,
        appId: String = appId,
        userId: String? = "user-1",
        keyId: Data? = nil,
        issuedAt: Date = now,
        ttl: TimeInterval = 300
    ) -> NewChallenge {
        NewChallenge(
            id: randomId(),
            appId: appId,
            purpose: purpose,
            userId: userId,
            keyId: keyId,
            apiKeyName: "gateway",
            issuedAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(ttl)
        )
    }

    /// Issues an assertion challenge bound to `key` in `store` and returns it.
    static func issueChallenge(for key: KeyRecord, in store: any RiskStore) async throws -> NewChallenge {
        let challenge = Self.challenge(keyId: key.keyId)
        _ = try await store.issueChallenge(challenge, quota: Self.quota)
        return challenge
    }

    static func key(userId: String = "user-1", deviceId: String? = "device-1", attestation: Data = randomId()) -> KeyRecord {
        let keyId = randomId()
        return KeyRecord(
            appId: appId,
            keyId: keyId,
            userId: userId,
            deviceId: deviceId,
            environment: .development,
            publicKey: Data([0x04]) + randomId() + randomId(),
            attestationSHA256: attestation,
            osVersion: "18.1",
            attestedAt: now
        )
    }

    static func receipt(for key: KeyRecord) -> ReceiptRecord {
        ReceiptRecord(
            appId: key.appId,
            keyId: key.keyId,
            receiptType: .attest,
            receipt: Data("receipt-\(key.keyId.base64EncodedString())".utf8),
            createdAt: now,
            notBefore: now.addingTimeInterval(86_400),
            expiresAt: now.addingTimeInterval(90 * 86_400),
            riskMetric: nil,
            storedAt: now
        )
    }

    static func claim(
        _ challenge: NewChallenge,
        key: KeyRecord,
        appId: String = appId,
        purpose: ChallengePurpose? = nil,
        at: Date = now
    ) -> ChallengeClaim {
        ChallengeClaim(
            challengeId: challenge.id,
            appId: appId,
            purpose: purpose ?? challenge.purpose,
            userId: key.userId,
            keyId: key.keyId,
            at: at,
            clockSkew: skew
        )
    }

    /// Issues an attestation challenge and registers `key` with it; returns the stored key.
    static func register(_ key: KeyRecord, in store: any RiskStore) async throws -> KeyRecord {
        let challenge = challenge(purpose: .attestation, userId: key.userId)
        _ = try await store.issueChallenge(challenge, quota: quota)
        let outcome = try await store.registerKey(
            KeyRegistration(claim: claim(challenge, key: key), key: key, receipt: receipt(for: key))
        )
        guard case .registered(let registered, _) = outcome else {
            throw RegistrationFailed(outcome: outcome)
        }
        return registered
    }

    struct RegistrationFailed: Error {
        let outcome: KeyRegistrationOutcome
    }

    /// Issues an assertion challenge bound to `key` and commits `counter` with it.
    static func assert(
        _ key: KeyRecord,
        counter: Int64,
        in store: any RiskStore,
        at: Date = now
    ) async throws -> AssertionCommitOutcome {
        let challenge = challenge(purpose: .assertion, userId: key.userId, keyId: key.keyId, issuedAt: at)
        _ = try await store.issueChallenge(challenge, quota: quota)
        return try await store.commitAssertion(
            AssertionCommit(claim: claim(challenge, key: key, at: at), counter: counter, requestContext: #"{"method":"POST"}"#)
        )
    }
}

extension AssertionCommitOutcome {
    var rejectionCode: StoreRejection.Code? {
        if case .rejected(let rejection) = self { return rejection.code }
        return nil
    }
}

extension KeyRegistrationOutcome {
    var rejectionCode: StoreRejection.Code? {
        if case .rejected(let rejection) = self { return rejection.code }
        return nil
    }
}
