public import Foundation

/// One server process as it last reported itself through the store: which rule sets it runs. Every process writes
/// its record every few seconds and after each reload, so `GET /v1/admin/rules` on any of them can list what every
/// process sharing the store runs, and a process whose record stops being refreshed is gone.
public struct ServerProcessRecord: Sendable, Hashable {
    /// Random per process start.
    public var processId: String
    public var host: String
    public var pid: Int
    public var startedAt: Date
    /// When the process last wrote this record.
    public var seenAt: Date
    public var ruleSetVersion: String
    public var shadowVersion: String?
    /// Whether the process's last reload attempt was rejected (it still runs `ruleSetVersion`).
    public var rulesRejected: Bool

    public init(
        processId: String, host: String, pid: Int, startedAt: Date, seenAt: Date, ruleSetVersion: String, shadowVersion: String?,
        rulesRejected: Bool
    ) {
        self.processId = processId
        self.host = host
        self.pid = pid
        self.startedAt = startedAt
        self.seenAt = seenAt
        self.ruleSetVersion = ruleSetVersion
        self.shadowVersion = shadowVersion
        self.rulesRejected = rulesRejected
    }
}
