/// Whose DeviceCheck bits a row holds: one app's, by default, so that an API key limited to one app can never
/// change another app's verdicts; the bits shared by the apps of a team the operator opted into sharing; or a
/// team's, as rows were written before schema 12 (read only by sharing apps, purged after
/// ``legacyRetentionDays``).
///
/// Apple's own two bits stay per device and team whatever the scope: the scope is only where AttestGuard files
/// what Apple said.
public struct DeviceCheckScope: Sendable, Hashable, CustomStringConvertible {
    /// How long team rows written before schema 12 are kept after they were observed.
    public static let legacyRetentionDays = 30

    /// The stored text: an app id, `shared:<team id>` or `team:<team id>`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// One app's bits.
    public static func app(_ appId: String) -> DeviceCheckScope {
        DeviceCheckScope(rawValue: appId)
    }

    /// The bits the sharing apps of a team file and read together.
    public static func shared(teamId: String) -> DeviceCheckScope {
        DeviceCheckScope(rawValue: "shared:\(teamId)")
    }

    /// A team's bits as stored before schema 12.
    public static func legacyTeam(teamId: String) -> DeviceCheckScope {
        DeviceCheckScope(rawValue: "\(legacyPrefix)\(teamId)")
    }

    package static let legacyPrefix = "team:"

    public var description: String { rawValue }
}
