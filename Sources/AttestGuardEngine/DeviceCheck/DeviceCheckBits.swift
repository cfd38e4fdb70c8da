import AttestGuardStore
public import AttestVocabulary
public import Foundation

/// DeviceCheck bits as last learnt from Apple for one subject of an app (or of the apps sharing bits), in one
/// environment. A bit is `nil` when Apple holds none for the device (`found` false).
public struct DeviceCheckBits: Sendable, Hashable {
    public var environment: AppAttestEnvironment
    public var subject: DeviceCheckSubject
    public var found: Bool
    public var bit0: Bool?
    public var bit1: Bool?
    /// Apple's `last_update_time` (`YYYY-MM`).
    public var lastUpdateTime: String?
    /// When this process learnt them.
    public var observedAt: Date

    init(_ record: DeviceCheckRecord) {
        environment = record.environment
        subject = record.subject
        found = record.found
        bit0 = record.bit0
        bit1 = record.bit1
        lastUpdateTime = record.lastUpdateTime
        observedAt = record.observedAt
    }
}
