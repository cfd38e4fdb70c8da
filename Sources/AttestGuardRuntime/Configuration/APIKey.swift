public import Foundation
import Crypto

/// What an API key may do.
public enum Scope: String, Sendable, Hashable, CaseIterable, Codable {
    case verify
    case score
    /// Forward-auth (`/v1/gateway/auth`) only: what an API gateway holds.
    case gateway
    case admin
    /// Read-only: keys, rules and gateway policies, limited to the key's apps; never a change, never a verdict.
    case analyst
    /// An analyst's one write: fraud labels (`POST /v1/labels`), limited to the key's apps.
    case analystWrite = "analyst:write"
    case deviceCheckRead = "devicecheck:read"
    case deviceCheckWrite = "devicecheck:write"
}

/// One configured API key: a name for logs and quotas, the SHA-256 of its secret (the secret itself is not
/// kept), its scopes, and the apps it may touch (`nil`: every app).
public struct APIKey: Sendable, Hashable {
    public var name: String
    public var secretSHA256: Data
    public var scopes: Set<Scope>
    public var apps: Set<String>?

    public init(name: String, secret: String, scopes: Set<Scope>, apps: Set<String>?) {
        self.name = name
        self.secretSHA256 = Data(SHA256.hash(data: Data(secret.utf8)))
        self.scopes = scopes
        self.apps = apps
    }

    public func allows(app appId: String) -> Bool {
        apps?.contains(appId) ?? true
    }
}

/// Finds the API key a bearer token names, comparing digests in constant time.
public struct APIKeyRing: Sendable {
    private let keys: [APIKey]

    public init(_ keys: [APIKey]) {
        self.keys = keys
    }

    public func key(forBearer token: String) -> APIKey? {
        let digest = Data(SHA256.hash(data: Data(token.utf8)))
        var found: APIKey?
        for key in keys where Self.constantTimeEquals(key.secretSHA256, digest) {
            found = key
        }
        return found
    }

    /// The configured key with this name: what a console session names (never its secret).
    public func key(named name: String) -> APIKey? {
        keys.first { $0.name == name }
    }

    private static func constantTimeEquals(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(lhs, rhs) { difference |= left ^ right }
        return difference == 0
    }
}
