public import AttestGuardStore
public import AttestVocabulary
public import Foundation

/// Debug tokens (contract: "Debug tokens"): an admin makes one per developer or CI runner for an app that accepts them
/// (``DebugTokenPolicy``), and the Simulator build sends it in `X-AppAttest-Token` where a device would send an
/// assertion. Forward-auth admits it on `require` and `token` routes as a key of its own kind (`key.kind` = `debug`).
///
/// Each use reads the token from the store (debug traffic is a developer's, not a crowd's), so a revocation or an
/// expiry holds at once in every process; the uses are counted in memory and added to the store behind the requests
/// (``uses``).
public struct DebugTokenService: Sendable {
    /// A token just made: its record and the secret, which is shown this once and kept nowhere.
    public struct Created: Sendable {
        public var token: DebugTokenRecord
        public var secret: String
    }

    /// Why a debug token does not pass.
    public enum Refusal: Error, Sendable, Hashable {
        /// The app accepts no debug tokens.
        case notAccepted(appId: String)
        /// Not a debug token's shape, no token with this secret, or another app's.
        case unknown
        case expired(at: Date)
        case revoked(at: Date)

        /// The error code forward-auth refuses with (401).
        public var code: ErrorCode {
            switch self {
            case .notAccepted: .debugTokensNotEnabled
            case .unknown: .debugTokenInvalid
            case .expired: .debugTokenExpired
            case .revoked: .debugTokenRevoked
            }
        }

        /// Why, for the error body.
        public var message: String {
            switch self {
            case .notAccepted(let appId): "app \(appId) accepts no debug tokens (apps.<app>.debugTokens.enabled)"
            case .unknown: "the debug token is not one of this app's"
            case .expired(let at): "the debug token expired at \(at.formatted(.iso8601)); ask an admin for a new one"
            case .revoked(let at): "the debug token was revoked at \(at.formatted(.iso8601))"
            }
        }
    }

    /// The most tokens one listing returns.
    public static let listingLimit = 1_000

    let store: any RiskStore
    let apps: AppCatalog
    public let clock: any EngineClock
    /// Uses counted in this process, waiting for the write-behind loop.
    public let uses: DebugTokenUseRecorder

    public init(store: any RiskStore, apps: AppCatalog, clock: any EngineClock) {
        self.store = store
        self.apps = apps
        self.clock = clock
        self.uses = DebugTokenUseRecorder(store: store)
    }

    /// Makes a token of `appId` for `name`, living `lifetimeDays` (7, or the app's maximum if lower, when `nil`).
    /// - Throws: `debug_tokens_not_enabled` (404); `invalid_field` for a lifetime outside one day to the app's
    ///   maximum; `app_not_found`; `store_unavailable`.
    public func create(appId: String, name: Identifier, lifetimeDays: Int?, createdBy: String) async throws -> Created {
        let policy = try acceptance(of: appId)
        let maximumDays = Int(policy.maximumLifetime / 86_400)
        let days = lifetimeDays ?? min(Int(DebugTokenPolicy.defaultLifetime / 86_400), maximumDays)
        guard (1...maximumDays).contains(days) else {
            throw EngineError.invalid(.invalidField, "lifetimeDays: a debug token of \(appId) lives 1-\(maximumDays) days (apps.<app>.debugTokens.maxLifetimeDays)")
        }
        let lifetime = TimeInterval(days) * 86_400
        let now = clock.now()
        // A clash of 256 random bits does not happen; of 72 (the id), once in a very long while: draw again.
        for _ in 0..<3 {
            let (secret, id) = DebugTokenSecret.make()
            guard let digest = DebugTokenSecret.digest(of: secret) else { continue }
            let record = DebugTokenRecord(
                id: id, appId: appId, name: name.value, secretSha256: digest, createdAt: now, expiresAt: now.addingTimeInterval(lifetime),
                createdBy: createdBy
            )
            if try await withStore({ try await store.createDebugToken(record) }) { return Created(token: record, secret: secret) }
        }
        throw EngineError(.unavailable, code: .storeUnavailable, "three new debug token ids in a row were taken; try again")
    }

    /// The app's tokens, newest first (revoked and expired ones too), at most `limit`; the uses this process has not
    /// written yet are added to each.
    public func list(appId: String, limit: Int = listingLimit) async throws -> [DebugTokenRecord] {
        _ = try apps.policy(for: appId)
        let limit = min(max(limit, 1), Self.listingLimit)
        return try await uses.betweenFlushes {
            try await withStore { try await store.debugTokens(appId: appId, limit: limit) }.map(uses.addingPending)
        }
    }

    /// Revokes the app's token `id` (a second revocation keeps the first instant).
    /// - Throws: `debug_token_not_found` (404), `app_not_found`, `store_unavailable`.
    public func revoke(appId: String, id: String) async throws -> DebugTokenRecord {
        _ = try apps.policy(for: appId)
        let notFound = EngineError(.notFound, code: .debugTokenNotFound, "app \(appId) has no debug token \(id.prefix(64))")
        guard DebugTokenSecret.isId(id) else { throw notFound }
        let now = clock.now()
        let revoked = try await uses.betweenFlushes {
            try await withStore { try await store.revokeDebugToken(appId: appId, id: id, at: now) }.map(uses.addingPending)
        }
        guard let token = revoked else { throw notFound }
        return token
    }

    /// Whether `secret` passes for `appId` now: a token of the app, not revoked, before its expiry and within the
    /// app's longest lifetime now (a lowered `maxLifetimeDays` shortens the tokens made before). A token that passes
    /// is counted as used, whatever the verdict on its request.
    /// - Throws: `store_unavailable`, `app_not_found`.
    public func admit(_ secret: String, appId: String) async throws -> Verdict<DebugTokenRecord, Refusal> {
        let app = try apps.policy(for: appId)
        guard let policy = app.debugTokens else { return .invalid(.notAccepted(appId: appId)) }
        guard let digest = DebugTokenSecret.digest(of: secret),
              let token = try await withStore({ try await store.debugToken(secretSha256: digest) }),
              token.appId == appId
        else { return .invalid(.unknown) }
        let now = clock.now()
        if let revokedAt = token.revokedAt { return .invalid(.revoked(at: revokedAt)) }
        let expiresAt = min(token.expiresAt, token.createdAt.addingTimeInterval(policy.maximumLifetime))
        guard now < expiresAt else { return .invalid(.expired(at: expiresAt)) }
        uses.note(id: token.id, at: now)
        return .valid(token)
    }

    /// The app's debug-token policy.
    /// - Throws: `debug_tokens_not_enabled` (404), `app_not_found`.
    @discardableResult
    public func acceptance(of appId: String) throws(EngineError) -> DebugTokenPolicy {
        guard let policy = try apps.policy(for: appId).debugTokens else {
            throw EngineError(.notFound, code: .debugTokensNotEnabled, Refusal.notAccepted(appId: appId).message)
        }
        return policy
    }
}
