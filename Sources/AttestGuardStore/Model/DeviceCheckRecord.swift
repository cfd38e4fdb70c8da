public import AttestVocabulary
public import Foundation

/// DeviceCheck bits as last learnt from Apple for one scope (an app, or the apps sharing bits), environment and subject. A bit is `nil` when it is
/// unknown (an update that set only the other bit, before any query); `found` is false when Apple answered
/// "Bit State Not Found".
public struct DeviceCheckRecord: Sendable, Hashable {
    public var scope: DeviceCheckScope
    /// `development` or `production`.
    public var environment: AppAttestEnvironment
    public var subject: DeviceCheckSubject
    public var bit0: Bool?
    public var bit1: Bool?
    public var found: Bool
    /// Apple's `last_update_time` (`YYYY-MM`).
    public var lastUpdateTime: String?
    public var observedAt: Date

    public init(
        scope: DeviceCheckScope,
        environment: AppAttestEnvironment,
        subject: DeviceCheckSubject,
        bit0: Bool?,
        bit1: Bool?,
        found: Bool,
        lastUpdateTime: String?,
        observedAt: Date
    ) {
        self.scope = scope
        self.environment = environment
        self.subject = subject
        self.bit0 = bit0
        self.bit1 = bit1
        self.found = found
        self.lastUpdateTime = lastUpdateTime
        self.observedAt = observedAt
    }
}
