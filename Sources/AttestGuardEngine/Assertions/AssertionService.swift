import AttestVocabulary
import Foundation
import AttestCore
import Crypto
import AttestGuardStore
/// Verifies assertions and commits them: the key must belong to the user and be active; the signature, RP ID
/// and counter verify (AttestCore); the clientData's request matches the one the gateway received; then one
/// store transaction consumes the challenge and advances the counter. A replay of an accepted assertion is
/// `assertion_already_accepted`, never a second success.
public struct AssertionService: Sendable {
    let store: any RiskStore
    let apps: AppCatalog
    let settings: EngineSettings
    let clock: any EngineClock
    let metrics: EngineMetrics
    let scorer: RiskScorer
    let keyMaterials: KeyMaterialCache
    private let verifier = AssertionVerifier()
    /// `settings.clockSkew`, kept apart: reading it through `settings` copied the trust roots on every assertion.
    private let clockSkew: Duration

    init(store: any RiskStore, apps: AppCatalog, settings: EngineSettings, clock: any EngineClock, metrics: EngineMetrics, scorer: RiskScorer) {
        self.store = store
        self.apps = apps
        self.settings = settings
        self.clock = clock
        self.metrics = metrics
        self.scorer = scorer
        self.keyMaterials = KeyMaterialCache()
        self.clockSkew = settings.clockSkew
    }

    /// A failed verification counts against the caller's user and IP, and against the key only when the key signed
    /// the assertion: anyone can name a key id, so a bogus assertion must not raise that key's
    /// `velocity.failed_verifications` (and the rules that read it) for its owner.
    public func assert(_ submission: AssertionSubmission) async throws -> AssertionResult {
        var signedByKey = false
        do {
            let result = try await accept(submission, signedByKey: &signedByKey)
            metrics.recordAssertion(result: "accepted")
            return result
        } catch let error as EngineError {
            metrics.recordAssertion(result: error.code.rawValue)
            if error.countsAsFailedVerification {
                scorer.velocity.record(
                    .failedVerifications, appId: submission.appId,
                    subjects: VelocitySubjects(key: signedByKey ? submission.keyId.bytes : nil, user: submission.userId.value, ip: submission.request.ip),
                    at: clock.now()
                )
            }
            throw error
        }
    }

    /// Verifies and commits; sets `signedByKey` once the signature verifies under the stored key.
    private func accept(_ submission: AssertionSubmission, signedByKey: inout Bool) async throws -> AssertionResult {
        let app = try apps.policy(for: submission.appId)

        let (key, status) = try await material(appId: app.appId, keyId: submission.keyId.bytes)
        guard key.userId.hasSameBytes(as: submission.userId.value) else {
            throw EngineError.verification(.keyUserMismatch, "the key belongs to another user")
        }
        switch status {
        case .revoked: throw EngineError.verification(.keyRevoked, "the key was revoked")
        case .superseded: throw EngineError.verification(.keySuperseded, "a newer key replaced this one on the same device")
        case .active, nil: break
        }
        // The app's environments are checked again at every assertion: a key attested in development stops
        // asserting once the app no longer accepts development.
        guard app.environments.contains(key.environment) else {
            let accepted = app.environments.map(\.rawValue).sorted().joined(separator: ", ")
            throw EngineError.verification(.environmentNotAllowed, "the key was attested in \(key.environment.rawValue); \(app.appId) now accepts \(accepted)")
        }
        let publicKey = key.publicKey

        // The counter check against the stored value happens atomically in the store, so that a replay is told
        // apart from a stale counter; here only the signature, RP ID and counter > 0 are checked.
        let verified: VerifiedAssertion
        switch verifier.verify(
            Array(submission.assertion),
            publicKey: publicKey,
            app: app.identity,
            clientData: Array(submission.clientData),
            previousCounter: 0
        ) {
        case .valid(let assertion): verified = assertion
        case .invalid(let error):
            // The verifier checks the RP ID, the counter and the extension map after the signature: the key signed those.
            if error.code == .rpIdMismatch || error.code == .counterNotIncreasing || error.code == .malformedAuthenticatorExtensions {
                signedByKey = true
            }
            throw EngineError.verification(error.code.errorCode, error.detail)
        }
        signedByKey = true
        // The build that signed the assertion (iOS 27's map) is judged as at attestation: the policy may have
        // changed since, and the running build may be another than the one that attested.
        try app.build.check(verified.extensions, environment: key.environment, osVersion: key.osVersion)

        let clientData = try AssertionClientData(submission.clientData, format: app.clientDataFormat)
        let binding = try clientData.checkBinding(to: submission.request)
        // Attributes of the wrong type for the rule set are refused before the commit: the challenge and counter
        // are spent only by an assertion that is then scored, under the same rule set.
        let ruleSet = scorer.rules.ruleSet
        _ = try SignalAssembler.attributeValues(submission.request.attributes ?? [:], for: ruleSet)

        let now = clock.now()
        let claim = ChallengeClaim(
            challengeId: clientData.challenge,
            appId: app.appId,
            purpose: .assertion,
            userId: submission.userId.value,
            keyId: submission.keyId.bytes,
            at: now,
            clockSkew: clockSkew
        )
        let commit = AssertionCommit(claim: claim, counter: Int64(verified.counter), requestContext: submission.request.jsonText)
        var scoreRequest = ScoreRequest(
            appId: app.appId,
            endpoint: .assertion,
            keyId: submission.keyId,
            userId: submission.userId,
            deviceId: key.deviceId.map(Identifier.init(stored:)),
            ip: submission.request.ip,
            action: submission.request.action,
            attributes: submission.request.attributes ?? [:],
            binding: binding.signal
        )
        scoreRequest.requestId = submission.requestId
        scoreRequest.validationCategory = verified.extensions?.validationCategory
        scoreRequest.bundleVersion = verified.extensions?.bundleVersion
        // The verdict's facts are read in the commit's round trip; a request whose read cannot be planned (a
        // malformed DeviceCheck subject, say) is scored after the commit, where a failure answers `review`.
        // Read through its fields below: a copy of the whole plan retains its request, rule set and policy.
        var planned = try? scorer.plan(scoreRequest, under: ruleSet, app: app)
        let (outcome, facts) = try await withStore {
            if let query = planned?.query { try await store.commitAssertion(commit, readingFacts: query) } else { (try await store.commitAssertion(commit), nil) }
        }
        switch outcome {
        case .committed(let previousCounter):
            // The plan hashed the same subjects (the score request's): counted under those hashes.
            if let subjects = planned?.subjects {
                scorer.velocity.record(.assertions, appId: app.appId, hashed: subjects, at: now)
            } else {
                scorer.velocity.record(.assertions, appId: app.appId, subjects: scoreRequest.velocitySubjects, at: now)
            }
            // A valid assertion commits whatever the verdict: the verdict is advice for the gateway (contract).
            // After the commit the answer is always a verdict: scoring failures decide it, they are not errors.
            scoreRequest.counterJump = Int64(verified.counter) - previousCounter
            let scored: RiskScorer.Outcome
            if facts != nil || planned?.query.isEmpty == true, var planned = planned.take() {
                planned.request = scoreRequest
                planned.countRecorded(.assertions)
                scored = await scorer.scoreCommitted(planned, facts: facts?.committing(commit))
            } else {
                // No plan, or the facts could not be read after the commit: scored on its own read, whose failure
                // gives the app's onStoreError verdict.
                scored = await scorer.scoreCommitted(scoreRequest, under: ruleSet)
            }
            var result = AssertionResult(
                keyId: submission.keyId.bytes,
                counter: Int64(verified.counter),
                clientDataFormat: app.clientDataFormat.name,
                requestBinding: binding,
                signedBodySha256: clientData.boundRequest?.bodySha256,
                verdict: scored.verdict
            )
            result.environment = key.environment
            return result
        case .rejected(let rejection):
            throw EngineError(rejection)
        }
    }

    /// The key's immutable material, with its status when it was read from the store (nil from the cache). A key
    /// revoked or superseded after it was kept is refused by the commit, which checks the status in the store.
    private func material(appId: String, keyId: Data) async throws -> (KeyMaterialCache.Material, KeyStatus?) {
        if let kept = keyMaterials.material(appId: appId, keyId: keyId) { return (kept, nil) }
        guard let key = try await withStore({ try await store.key(appId: appId, keyId: keyId) }) else {
            throw EngineError(.notFound, code: .keyNotFound, "no key with this id is registered for \(appId)")
        }
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key.publicKey) else {
            throw StoreError(.corruptRow, "the stored public key of \(Base64Text.urlEncoded(key.keyId)) is not a P-256 key")
        }
        let material = KeyMaterialCache.Material(publicKey: publicKey, userId: key.userId, deviceId: key.deviceId, environment: key.environment, osVersion: key.osVersion)
        keyMaterials.keep(material, appId: appId, keyId: keyId)
        return (material, key.status)
    }
}
