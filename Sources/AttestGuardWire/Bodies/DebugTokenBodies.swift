public import Foundation

// Debug tokens (contract: "Debug tokens"): what an admin sends to make one, and how one is shown.

/// `POST /v1/admin/apps/{appId}/debug-tokens` request body: whose token it is and how long it lives.
public struct DebugTokenCreateBody: Codable, Sendable, Hashable {
    /// The developer or CI runner the token is for (1-256 printable bytes), shown in listings and logs.
    public var name: String
    /// Whole days, from 1 to the app's `debugTokens.maxLifetimeDays`; 7 (or that maximum, if lower) when absent.
    public var lifetimeDays: Int?

    public init(name: String, lifetimeDays: Int? = nil) {
        self.name = name
        self.lifetimeDays = lifetimeDays
    }
}

/// One debug token as the admin routes and `attestguard debug-tokens` show it: never its secret.
public struct DebugTokenBody: Codable, Sendable, Hashable {
    /// Where a token stands.
    public enum State: String, Codable, Sendable, Hashable, CaseIterable {
        case active
        case expired
        case revoked
    }

    /// The public id (`dbg_…`) revocation names it by.
    public var id: String
    public var appId: String
    public var name: String
    public var state: State
    public var createdAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?
    /// The name of the API key (or `cli`) that made it.
    public var createdBy: String
    /// The requests it was admitted on, whatever their verdict, as every process has counted them (a process adds its
    /// count within a few seconds); approximate, as the contract says.
    public var uses: Int64
    public var lastUsedAt: Date?

    public init(
        id: String, appId: String, name: String, state: State, createdAt: Date, expiresAt: Date, revokedAt: Date?, createdBy: String, uses: Int64,
        lastUsedAt: Date?
    ) {
        self.id = id
        self.appId = appId
        self.name = name
        self.state = state
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.createdBy = createdBy
        self.uses = uses
        self.lastUsedAt = lastUsedAt
    }
}

/// `POST /v1/admin/apps/{appId}/debug-tokens` response: the token and its secret, shown this once (the server keeps
/// only its SHA-256). The developer puts the secret in the app's Simulator configuration.
public struct DebugTokenCreatedBody: Codable, Sendable, Hashable {
    public var token: DebugTokenBody
    /// `agdt_…`: sent in `X-AppAttest-Token` where a device would send an assertion.
    public var secret: String

    public init(token: DebugTokenBody, secret: String) {
        self.token = token
        self.secret = secret
    }
}

/// `GET /v1/admin/apps/{appId}/debug-tokens` response: the app's tokens, newest first.
public struct DebugTokenListBody: Codable, Sendable, Hashable {
    public var tokens: [DebugTokenBody]

    public init(tokens: [DebugTokenBody]) {
        self.tokens = tokens
    }
}
