public import Foundation
public import AttestVocabulary

/// A one-time challenge about to be stored: 32 random bytes bound to an app, a purpose and optionally a user and
/// (for assertions) a key.
public struct NewChallenge: Sendable, Equatable {
    public var id: Data
    public var appId: String
    public var purpose: ChallengePurpose
    public var userId: String?
    public var keyId: Data?
    /// The configured name of the API key that asked for it (for per-key accounting; never the secret).
    public var apiKeyName: String?
    /// The keyed hash of the client's address, for the limits on challenges issued without a user.
    public var clientHash: String?
    public var issuedAt: Date
    public var expiresAt: Date

    public init(
        id: Data,
        appId: String,
        purpose: ChallengePurpose,
        userId: String? = nil,
        keyId: Data? = nil,
        apiKeyName: String? = nil,
        clientHash: String? = nil,
        issuedAt: Date,
        expiresAt: Date
    ) {
        self.id = id
        self.appId = appId
        self.purpose = purpose
        self.userId = userId
        self.keyId = keyId
        self.apiKeyName = apiKeyName
        self.clientHash = clientHash
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// A stored challenge and, once it has been used, what consumed it.
public struct ChallengeRecord: Sendable, Equatable {
    public var challenge: NewChallenge
    public var consumedAt: Date?
    /// The key whose attestation or assertion consumed the challenge.
    public var consumedByKeyId: Data?
    /// The assertion counter that consumed the challenge (assertions only).
    public var consumedCounter: Int64?

    public init(challenge: NewChallenge, consumedAt: Date?, consumedByKeyId: Data?, consumedCounter: Int64?) {
        self.challenge = challenge
        self.consumedAt = consumedAt
        self.consumedByKeyId = consumedByKeyId
        self.consumedCounter = consumedCounter
    }
}

/// How many challenges may be issued, shared by every process on the store: per user of an app within a sliding
/// window; without a user, per client address of an app within the same window, and unexpired per app (so that the
/// table stays bounded whoever asks).
public struct ChallengeQuota: Sendable, Equatable {
    public var maximumPerUser: Int
    public var window: Duration
    /// Challenges without a user one client address (``NewChallenge/clientHash``) of an app may be issued per window.
    public var maximumUnboundPerClient: Int
    /// Unexpired challenges without a user one app may hold.
    public var maximumUnboundPerApp: Int

    public init(maximumPerUser: Int, window: Duration, maximumUnboundPerClient: Int = 60, maximumUnboundPerApp: Int = 10_000) {
        self.maximumPerUser = maximumPerUser
        self.window = window
        self.maximumUnboundPerClient = maximumUnboundPerClient
        self.maximumUnboundPerApp = maximumUnboundPerApp
    }
}

/// Which limit of a ``ChallengeQuota`` refused a challenge.
public enum ChallengeQuotaLimit: Sendable, Equatable {
    case perUser
    case unboundPerClient
    case unboundPerApp
}

/// The result of asking the store to issue a challenge.
public enum ChallengeIssueOutcome: Sendable, Equatable {
    case issued
    /// `limit` is reached; the oldest challenge it counts leaves it at `retryAt`.
    case overQuota(retryAt: Date, limit: ChallengeQuotaLimit)
}
