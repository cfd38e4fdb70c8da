public import AttestVocabulary
public import Foundation

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

    init(assertions: AssertionService, apps: AppCatalog, keying: VelocityKeying, service: SessionTokenService?) {
        self.assertions = assertions
        self.apps = apps
        self.keying = keying
        self.service = service
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
            environment: result.environment, decision: result.verdict.decision
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
