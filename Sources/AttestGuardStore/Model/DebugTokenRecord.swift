public import Foundation

/// A debug token as the store keeps it: never the secret, only its SHA-256.
public struct DebugTokenRecord: Sendable, Hashable {
    /// The public id an admin names the token by (`dbg_…`).
    public var id: String
    public var appId: String
    /// Whose token it is (a developer, a CI runner), as the admin wrote it.
    public var name: String
    /// SHA-256 of the secret the client sends.
    public var secretSha256: Data
    public var createdAt: Date
    public var expiresAt: Date
    public var revokedAt: Date?
    /// The API key that made it.
    public var createdBy: String
    /// The requests it passed, as the processes have added them so far.
    public var uses: Int64
    public var lastUsedAt: Date?

    public init(
        id: String, appId: String, name: String, secretSha256: Data, createdAt: Date, expiresAt: Date, revokedAt: Date? = nil,
        createdBy: String, uses: Int64 = 0, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.appId = appId
        self.name = name
        self.secretSha256 = secretSha256
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.createdBy = createdBy
        self.uses = uses
        self.lastUsedAt = lastUsedAt
    }
}

/// Uses of one debug token counted in a process, added to the store behind the requests.
public struct DebugTokenUse: Sendable, Hashable {
    public var id: String
    public var count: Int64
    public var lastUsedAt: Date

    public init(id: String, count: Int64, lastUsedAt: Date) {
        self.id = id
        self.count = count
        self.lastUsedAt = lastUsedAt
    }
}
