import AttestCore
public import Foundation
import Crypto
public import AttestGuardStore
public import AttestVocabulary

/// A challenge as handed to the caller.
public struct IssuedChallenge: Sendable, Hashable {
    /// The 32 random bytes, base64url without padding: what the app passes on.
    public var challenge: String
    public var purpose: ChallengePurpose
    public var appId: String
    public var userId: String?
    public var keyId: Data?
    public var expiresAt: Date
}

/// What a caller asks for when it wants a challenge.
public struct ChallengeRequest: Sendable, Hashable {
    public var appId: String
    public var purpose: ChallengePurpose
    public var userId: Identifier?
    public var keyId: KeyId?
    /// The client's address as the gateway saw it: user-less challenges are limited per (app, address).
    public var ip: ClientIP?

    public init(appId: String, purpose: ChallengePurpose, userId: Identifier? = nil, keyId: KeyId? = nil, ip: ClientIP? = nil) {
        self.appId = appId
        self.purpose = purpose
        self.userId = userId
        self.keyId = keyId
        self.ip = ip
    }
}

/// Issues one-time challenges: 32 bytes from the system CSPRNG, bound to an app, a purpose and optionally a user
/// and key, stored with their expiry, under the store's quotas (shared by all processes: per user; without a user,
/// per client address and unexpired per app) and an opt-in per-API-key rate (in this process).
public struct ChallengeService: Sendable {
    let store: any RiskStore
    let apps: AppCatalog
    let settings: EngineSettings
    let clock: any EngineClock
    let apiKeyLimiter: RateLimiter
    let metrics: EngineMetrics

    public init(store: any RiskStore, apps: AppCatalog, settings: EngineSettings, clock: any EngineClock, metrics: EngineMetrics) {
        self.metrics = metrics
        self.store = store
        self.apps = apps
        self.settings = settings
        self.clock = clock
        self.apiKeyLimiter = RateLimiter(perMinute: settings.challengesPerMinutePerAPIKey)
    }

    /// Issues a challenge, charging `apiKeyName`'s rate.
    public func issue(_ request: ChallengeRequest, apiKeyName: String?) async throws -> IssuedChallenge {
        do {
            let issued = try await issueUnmetered(request, apiKeyName: apiKeyName)
            metrics.recordChallenge(purpose: request.purpose.rawValue, result: "issued")
            return issued
        } catch let error as EngineError {
            metrics.recordChallenge(purpose: request.purpose.rawValue, result: error.code.rawValue)
            throw error
        }
    }

    private func issueUnmetered(_ request: ChallengeRequest, apiKeyName: String?) async throws -> IssuedChallenge {
        _ = try apps.policy(for: request.appId)
        if request.keyId != nil, request.purpose != .assertion {
            throw EngineError.invalid(.invalidField, "keyId binds assertion challenges only")
        }
        let now = clock.now()
        if let apiKeyName, let retryAt = apiKeyLimiter.take(key: apiKeyName, at: now) {
            throw EngineError(.rateLimited(retryAt: retryAt), code: .rateLimited, "this API key requested too many challenges")
        }
        // 32 bytes of the system's secure generator, eight at a time: four `getrandom` calls (a byte at a time
        // would be 32).
        var generator = SystemRandomNumberGenerator()
        var id = Data(capacity: 32)
        for _ in 0..<4 { withUnsafeBytes(of: generator.next() as UInt64) { id.append(contentsOf: $0) } }
        let challenge = NewChallenge(
            id: id,
            appId: request.appId,
            purpose: request.purpose,
            userId: request.userId?.value,
            keyId: request.keyId?.bytes,
            apiKeyName: apiKeyName,
            clientHash: request.userId == nil ? request.ip.flatMap { settings.velocityKeying.hash(VelocitySubjects(ip: $0)).ip } : nil,
            issuedAt: now,
            expiresAt: now.addingTimeInterval(settings.challengeTTL.timeInterval)
        )
        let outcome = try await withStore { try await store.issueChallenge(challenge, quota: settings.challengeQuota) }
        if case .overQuota(let retryAt, let limit) = outcome {
            let quota = settings.challengeQuota
            let message =
                switch limit {
                case .perUser: "the user holds \(quota.maximumPerUser) challenges issued in the last \(quota.window)"
                case .unboundPerClient:
                    "this client address holds \(quota.maximumUnboundPerClient) challenges without a user issued in the last \(quota.window)"
                case .unboundPerApp: "the app holds \(quota.maximumUnboundPerApp) unexpired challenges without a user"
                }
            throw EngineError(.rateLimited(retryAt: retryAt), code: .rateLimited, message)
        }
        return IssuedChallenge(
            challenge: Base64Text.urlEncoded(id),
            purpose: request.purpose,
            appId: request.appId,
            userId: request.userId?.value,
            keyId: request.keyId?.bytes,
            expiresAt: challenge.expiresAt
        )
    }
}
