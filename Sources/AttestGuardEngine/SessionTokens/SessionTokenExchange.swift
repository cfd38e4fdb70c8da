public import AttestVocabulary
public import Foundation
import AttestGuardWire

/// Exchanges one verified assertion for a session token (contract: "Session tokens"): the assertion is verified,
/// committed and scored exactly as `POST /v1/assertions` does it, then a token is issued for its key unless the verdict
/// is `deny`. An app that issues no tokens (`apps.<app>.sessionTokens.enabled`) or a server without a signing key
/// refuses before the assertion is spent.
public struct SessionTokenExchange: Sendable {
    /// What an exchange gave.
    public enum Outcome: Sendable {
        /// A token, with the assertion's result (its verdict goes into the token).
        case issued(IssuedSessionToken, AssertionResult)
        /// The assertion verified and the verdict was `deny`: no token.
        case denied(AssertionResult)
    }

    let assertions: AssertionService
    let apps: AppCatalog
    let keying: VelocityKeying
    /// Signs and verifies tokens; `nil` when the server has no signing key (`sessionTokens.signingKey*`).
    public let service: SessionTokenService?
    /// The keys whose tokens no longer pass.
    public let retiredKeys: RetiredKeyBook

    init(assertions: AssertionService, apps: AppCatalog, keying: VelocityKeying, service: SessionTokenService?, retiredKeys: RetiredKeyBook) {
        self.assertions = assertions
        self.apps = apps
        self.keying = keying
        self.service = service
        self.retiredKeys = retiredKeys
    }

    /// The held retired keys' horizon for `apps`: their longest token lifetime, the clock skew tolerated and the
    /// refresh overlap; zero when no app issues tokens.
    static func retirementHorizon(apps: AppCatalog, clockSkew: TimeInterval) -> TimeInterval {
        guard let longest = apps.all.compactMap(\.sessionTokenLifetime).max() else { return 0 }
        return longest + max(0, clockSkew) + RetiredKeyBook.overlap
    }

    /// Whether `token` admits a request of `userId` to a `token` route of `appId`: signed by a published key,
    /// unexpired, for this app (which issues tokens) and this user, and its key not retired. No store round trip. The
    /// verdict is the rules' decision at issuance, under the app's mode now (in monitor mode: `allow`, not enforced).
    public func admit(_ token: String, appId: String, userId: Identifier) async -> Verdict<AdmittedSessionToken, SessionTokenService.Refusal> {
        guard let service, let app = try? apps.policy(for: appId), app.sessionTokenLifetime != nil else {
            return .invalid(.invalid("app \(appId) issues no session tokens"))
        }
        guard retiredKeys.isCurrent else { return .invalid(.retiredKeysUnread) }
        let claims: SessionTokenClaims
        switch await service.verify(token, appId: appId) {
        case .valid(let verified): claims = verified
        case .invalid(let refusal): return .invalid(refusal)
        }
        guard let keyBytes = Base64Text.decodeURL(claims.sub.value), let keyId = try? KeyId(bytes: keyBytes),
              AppAttestEnvironment(rawValue: claims.env) != nil, let decision = Decision(rawValue: claims.dec)
        else {
            return .invalid(.invalid("its claims are not a session token's"))
        }
        guard claims.usr == keying.subject(.user, userId.value) else { return .invalid(.otherUser) }
        if let status = retiredKeys.retirement(appId: appId, keyId: keyId.bytes) { return .invalid(.keyRetired(status)) }
        let verdict =
            switch app.mode {
            case .enforce: RiskVerdict(decision: decision, score: claims.scr, reasons: [], ruleSetVersion: claims.rsv)
            case .monitor: RiskVerdict(decision: .allow, score: claims.scr, reasons: [], ruleSetVersion: claims.rsv, enforced: false, ruleDecision: decision)
            }
        return .valid(AdmittedSessionToken(keyId: keyId, verdict: verdict, expiresAt: claims.exp.value))
    }

    /// Verifies `submission` and issues a token for its key.
    /// - Throws: `session_tokens_not_enabled` (404) before anything is spent; every refusal of
    ///   ``AssertionService/assert(_:)``.
    public func exchange(_ submission: AssertionSubmission) async throws -> Outcome {
        let (lifetime, service) = try issuer(for: submission.appId)
        let result = try await assertions.assert(submission)
        guard result.verdict.decision != .deny else { return .denied(result) }
        let grant = SessionTokenGrant(
            appId: submission.appId, keyId: submission.keyId, userHash: keying.subject(.user, submission.userId.value),
            environment: result.environment, verdict: result.verdict
        )
        return .issued(try await service.issue(grant, lifetime: lifetime), result)
    }

    /// The lifetime of `appId`'s tokens and the service that signs them, checked before a request's credentials are
    /// read, so that an app without tokens hears so whatever it sent.
    /// - Throws: `session_tokens_not_enabled` (404), `app_not_found`.
    @discardableResult
    public func issuer(for appId: String) throws -> (lifetime: TimeInterval, service: SessionTokenService) {
        let app = try apps.policy(for: appId)
        guard let lifetime = app.sessionTokenLifetime, let service else {
            let why = app.sessionTokenLifetime == nil ? "app \(app.appId) issues no session tokens (apps.<app>.sessionTokens.enabled)"
                : "the server has no session token signing key (sessionTokens.signingKeyFile)"
            throw EngineError(.notFound, code: .sessionTokensNotEnabled, why)
        }
        return (lifetime, service)
    }
}

/// A session token a `token` route admitted: the attested key it stands for and what was known at its issuance.
public struct AdmittedSessionToken: Sendable, Hashable {
    public var keyId: KeyId
    /// The verdict of the assertion the token was exchanged for (its decision, score and rule set; no reasons), under
    /// the app's mode now.
    public var verdict: RiskVerdict
    public var expiresAt: Date
}
