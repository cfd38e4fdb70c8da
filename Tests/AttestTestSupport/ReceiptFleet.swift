public import DeviceSimulator
public import AttestCore
import AppleReceipts
import Crypto
public import Foundation
public import AttestGuardStore
import X509
public import AttestVocabulary

/// Registers many keys with real-format ATTEST receipts straight into a store (no attestation verification),
/// each with its own P-256 key, credential certificate and receipt token, due for refresh at an instant: the
/// install base a receipt batch works through.
public enum ReceiptFleet {
    /// One registered key of the fleet.
    public struct Member: Sendable, Hashable {
        public var keyId: Data
        public var publicKey: Data
        /// The receipt token (field 5) the fake Apple derives the key's risk metric from.
        public var token: String
        public var userId: String
    }

    /// Registers `count` keys of `app` in `environment`, attested at `now` and due at `dueAt`, `parallelism` at a time.
    /// `storedNotBefore` is written to the stored record only (as if an earlier redemption had set it). Users are
    /// named `<userPrefix>-<index>`. With `placeholderReceipts`, keys get random ids and a receipt no Apple would
    /// redeem, at no signing cost: keys a test expects never to reach the fake Apple (their tokens are empty).
    public static func register(
        count: Int,
        in store: any RiskStore,
        pki: SimulatedApplePKI = SimulatorFixtures.pki,
        app: AppIdentity = SimulatorFixtures.app,
        environment: AppAttestEnvironment = .development,
        at now: Date = SimulatorFixtures.now,
        dueAt: Date? = nil,
        storedNotBefore: Date? = nil,
        userPrefix: String = "fleet-user",
        placeholderReceipts: Bool = false,
        parallelism: Int = 8
    ) async throws -> [Member] {
        try await withThrowingTaskGroup(of: [Member].self) { group in
            let share = (count + parallelism - 1) / parallelism
            for worker in 0..<parallelism {
                let range = min(count, worker * share)..<min(count, (worker + 1) * share)
                guard !range.isEmpty else { continue }
                group.addTask {
                    var members: [Member] = []
                    for index in range {
                        members.append(
                            try await registerOne(
                                index, in: store, pki: pki, app: app, environment: environment, at: now, dueAt: dueAt ?? now,
                                storedNotBefore: storedNotBefore, userId: "\(userPrefix)-\(index)", placeholder: placeholderReceipts
                            )
                        )
                    }
                    return members
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    private static func registerOne(
        _ index: Int,
        in store: any RiskStore,
        pki: SimulatedApplePKI,
        app: AppIdentity,
        environment: AppAttestEnvironment,
        at now: Date,
        dueAt: Date,
        storedNotBefore: Date?,
        userId: String,
        placeholder: Bool
    ) async throws -> Member {
        let (keyId, publicKey, token, receipt): (Data, Data, String, Data)
        if placeholder {
            let randomKey = Data([0x04]) + Data((0..<64).map { _ in UInt8.random(in: 0...255) })
            let randomId = Data(SHA256.hash(data: randomKey))
            (keyId, publicKey, token, receipt) = (randomId, randomKey, "", Data("placeholder receipt ".utf8) + randomId)
        } else {
            let minted = try AttestedKeyReceipt(pki: pki, app: app, environment: environment, at: now)
            (keyId, publicKey, token, receipt) = (minted.keyId, minted.publicKey, minted.token, minted.receipt)
        }
        let challenge = NewChallenge(
            id: Data(SHA256.hash(data: keyId + Data("challenge".utf8))),
            appId: app.appId,
            purpose: .attestation,
            userId: userId,
            keyId: nil,
            apiKeyName: nil,
            issuedAt: now,
            expiresAt: now.addingTimeInterval(300)
        )
        _ = try await store.issueChallenge(challenge, quota: ChallengeQuota(maximumPerUser: 1_000, window: .seconds(60)))
        let record = KeyRecord(
            appId: app.appId,
            keyId: keyId,
            userId: userId,
            deviceId: nil,
            environment: environment,
            publicKey: publicKey,
            attestationSHA256: Data(SHA256.hash(data: receipt)),
            osVersion: "17.2.1",
            attestedAt: now
        )
        let stored = ReceiptRecord(
            appId: app.appId,
            keyId: keyId,
            receiptType: .attest,
            receipt: receipt,
            createdAt: now,
            notBefore: storedNotBefore,
            expiresAt: now.addingTimeInterval(90 * 86_400),
            riskMetric: nil,
            storedAt: now,
            nextRefreshAt: dueAt
        )
        let claim = ChallengeClaim(challengeId: challenge.id, appId: app.appId, purpose: .attestation, userId: userId,
                                   keyId: keyId, at: now, clockSkew: .seconds(120))
        let outcome = try await store.registerKey(KeyRegistration(claim: claim, key: record, receipt: stored))
        guard case .registered = outcome else { throw FleetRegistrationFailed(outcome: outcome) }
        return Member(keyId: keyId, publicKey: publicKey, token: token, userId: userId)
    }

    /// A fleet key that the store refused.
    public struct FleetRegistrationFailed: Error {
        public let outcome: KeyRegistrationOutcome
    }
}
