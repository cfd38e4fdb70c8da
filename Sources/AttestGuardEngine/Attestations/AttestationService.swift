import Foundation
import AppleReceipts
import AttestCore
import Crypto
import AttestGuardStore
import AttestVocabulary

/// Verifies attestations and registers their keys: Apple's nine checks (AttestCore), the app's environments,
/// then one store transaction that consumes the challenge, stores the key with its ATTEST receipt and
/// supersedes the user's previous key on the same device.
public struct AttestationService: Sendable {
    let store: any RiskStore
    let apps: AppCatalog
    let settings: EngineSettings
    let clock: any EngineClock
    let verifier: AttestationVerifier
    let metrics: EngineMetrics
    let scorer: RiskScorer
    /// Told of the keys a registration supersedes.
    let factsCache: ScoringFactsCache
    /// Told of the keys a registration supersedes, so that their session tokens stop passing here at once.
    let retiredKeys: RetiredKeyBook

    init(
        store: any RiskStore, apps: AppCatalog, settings: EngineSettings, clock: any EngineClock, metrics: EngineMetrics, scorer: RiskScorer,
        factsCache: ScoringFactsCache, retiredKeys: RetiredKeyBook
    ) {
        self.factsCache = factsCache
        self.retiredKeys = retiredKeys
        self.store = store
        self.apps = apps
        self.settings = settings
        self.clock = clock
        self.verifier = settings.attestationVerifier
        self.metrics = metrics
        self.scorer = scorer
    }

    public func attest(_ submission: AttestationSubmission) async throws -> AttestationResult {
        let subjects = VelocitySubjects(
            key: submission.keyId.bytes, user: submission.userId.value, device: submission.deviceId?.value, ip: submission.ip
        )
        do {
            // Velocity counts only for configured apps: an unknown app id writes nothing.
            let app = try apps.policy(for: submission.appId)
            scorer.velocity.record(.attestations, appId: app.appId, subjects: subjects, at: clock.now())
            let result = try await register(submission, app: app)
            metrics.recordAttestation(result: result.idempotent ? "idempotent" : "registered")
            if !result.idempotent {
                // The rollout's success count: best effort, a failed count never fails a registered key.
                _ = try? await AttestationOutcomes.count(.accepted, appId: app.appId, store: store, apps: apps, clock: clock)
            }
            return result
        } catch let error as EngineError {
            metrics.recordAttestation(result: error.code.rawValue)
            if error.countsAsFailedVerification {
                scorer.velocity.record(.failedVerifications, appId: submission.appId, subjects: subjects, at: clock.now())
            }
            throw error
        }
    }

    private func register(_ submission: AttestationSubmission, app: AppPolicy) async throws -> AttestationResult {
        guard submission.challenge.count == 32 else {
            throw EngineError.invalid(.invalidField, "challenge must be 32 bytes, got \(submission.challenge.count)")
        }
        let digest = Data(SHA256.hash(data: submission.attestation))
        let now = clock.now()
        let claim = ChallengeClaim(
            challengeId: submission.challenge,
            appId: app.appId,
            purpose: .attestation,
            userId: submission.userId.value,
            keyId: submission.keyId.bytes,
            at: now,
            clockSkew: settings.clockSkew
        )

        // An identical re-submission (same object, the challenge that registered the key, before that challenge's
        // expiry) answers from the registry without verifying or consuming anything.
        if let existing = try await withStore({ try await store.key(appId: app.appId, keyId: submission.keyId.bytes) }) {
            if let rejection = existing.reregistrationRejection(userId: submission.userId.value, attestationSHA256: digest, claim: claim) {
                throw EngineError(rejection)
            }
            let receipt = try await withStore { try await store.receipt(appId: app.appId, keyId: existing.keyId) }
            return try await result(key: existing, receipt: receipt, idempotent: true, supersededKeyIds: [], ip: submission.ip, requestId: submission.requestId)
        }

        let request = AttestationRequest(
            keyId: Array(submission.keyId.bytes),
            app: app.identity,
            allowedEnvironments: Set(AppAttestEnvironment.allCases),
            clientData: .challenge(Array(submission.challenge), hashing: app.attestationHashing)
        )
        let verified: VerifiedAttestation
        switch await verifier.verify(Array(submission.attestation), request: request, at: now) {
        case .valid(let attestation): verified = attestation
        case .invalid(let error): throw EngineError.verification(error.code.errorCode, error.detail)
        }
        try checkEnvironment(verified.environment, app: app)
        try app.build.check(verified.credential.extensions, environment: verified.environment, osVersion: verified.certificateInformation.osVersion)

        let key = KeyRecord(
            appId: app.appId,
            keyId: submission.keyId.bytes,
            userId: submission.userId.value,
            deviceId: submission.deviceId?.value,
            environment: verified.environment,
            publicKey: Data(verified.publicKeyX963),
            attestationSHA256: digest,
            osVersion: verified.certificateInformation.osVersion,
            attestedAt: now,
            validationCategory: verified.credential.extensions?.validationCategory,
            bundleVersion: verified.credential.extensions?.bundleVersion
        )
        let receipt = ReceiptRecord(
            appId: app.appId,
            keyId: submission.keyId.bytes,
            receiptType: verified.receipt.type,
            receipt: Data(verified.receiptBytes),
            createdAt: verified.receipt.creationTime,
            notBefore: verified.receipt.notBefore,
            expiresAt: verified.receipt.expirationTime,
            riskMetric: verified.receipt.riskMetric,
            storedAt: now,
            nextRefreshAt: now.addingTimeInterval(settings.receiptRefresh.firstRedemptionDelay.timeInterval)
        )
        let outcome = try await withStore {
            try await store.registerKey(KeyRegistration(claim: claim, key: key, receipt: receipt))
        }
        switch outcome {
        case .registered(let registered, let superseded):
            for keyId in superseded { factsCache.keyChanged(appId: registered.appId, keyId: keyId) }
            retiredKeys.note(superseded.map { RetiredKey(appId: registered.appId, keyId: $0, status: .superseded, changedAt: registered.attestedAt) })
            scorer.velocity.record(
                .newKeys, appId: app.appId,
                subjects: VelocitySubjects(key: registered.keyId, user: registered.userId, device: registered.deviceId, ip: submission.ip), at: now
            )
            return try await result(key: registered, receipt: receipt, idempotent: false, supersededKeyIds: superseded, ip: submission.ip, requestId: submission.requestId)
        case .alreadyRegistered(let existing):
            let stored = try await withStore { try await store.receipt(appId: app.appId, keyId: existing.keyId) }
            return try await result(key: existing, receipt: stored, idempotent: true, supersededKeyIds: [], ip: submission.ip, requestId: submission.requestId)
        case .rejected(let rejection):
            throw EngineError(rejection)
        }
    }

    private func checkEnvironment(_ environment: AppAttestEnvironment, app: AppPolicy) throws(EngineError) {
        if case .simulator = settings.trust, environment == .production {
            throw EngineError.verification(
                .environmentNotAllowed,
                "simulator mode refuses production keys: simulator roots must never vouch for a production key"
            )
        }
        guard app.environments.contains(environment) else {
            let accepted = app.environments.map(\.rawValue).sorted().joined(separator: ", ")
            throw EngineError.verification(
                .environmentNotAllowed,
                "the key was attested in \(environment.rawValue); \(app.appId) accepts \(accepted)"
            )
        }
    }

    /// The result with the verdict for the key as registered (a valid attestation registers whatever the verdict).
    /// The request's validation category and bundle version are the key's: the key keeps its attestation's map, and
    /// an idempotent answer is only ever for the very same attestation object.
    private func result(
        key: KeyRecord, receipt: ReceiptRecord?, idempotent: Bool, supersededKeyIds: [Data], ip: ClientIP?, requestId: String?
    ) async throws -> AttestationResult {
        var request = ScoreRequest(
            appId: key.appId, endpoint: .attestation, keyId: KeyId(stored: key.keyId), userId: Identifier(stored: key.userId),
            deviceId: key.deviceId.map(Identifier.init(stored:)), ip: ip
        )
        request.requestId = requestId
        request.validationCategory = key.validationCategory
        request.bundleVersion = key.bundleVersion
        let scored = await scorer.scoreCommitted(request)
        return AttestationResult(
            key: AttestedKey(key), receipt: receipt.map(KeyReceipt.init), idempotent: idempotent, supersededKeyIds: supersededKeyIds,
            verdict: scored.verdict
        )
    }
}
