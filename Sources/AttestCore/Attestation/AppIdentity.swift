import Crypto

/// An app as App Attest names it: `TEAMID.bundle.id`, with the RP ID hash derived from it once.
public struct AppIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The App ID, `<Team ID>.<bundle id>`.
    public let appId: String
    /// SHA-256 of the App ID's UTF-8 bytes: the RP ID hash authenticator data must carry.
    public let rpIdHash: [UInt8]

    public init(appId: String) {
        self.appId = appId
        self.rpIdHash = Array(SHA256.hash(data: Array(appId.utf8)))
    }

    public init(teamId: String, bundleId: String) {
        self.init(appId: "\(teamId).\(bundleId)")
    }

    /// The team id: the App ID up to its first dot.
    public var teamId: Substring {
        appId.prefix(while: { $0 != "." })
    }

    public var description: String { appId }
}
