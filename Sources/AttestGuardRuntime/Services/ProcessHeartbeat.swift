public import AttestGuardEngine
public import Foundation
public import AttestGuardStore
/// This server process in the store's list of processes (``ServerProcessRecord``): which rule set and shadow set it
/// runs, written every few seconds by ``ProcessHeartbeatService`` and right after an admin reload, and read back by
/// `GET /v1/admin/rules`, so that an operator asking any process sees the version every process runs.
public struct ProcessHeartbeat: Sendable {
    /// How recently a process must have written its record to be listed (a few missed heartbeats).
    public static let freshness: TimeInterval = 30

    public let processId: String
    public let host: String
    public let pid: Int
    public let startedAt: Date
    package let store: any ServerProcessStore
    package let reloader: RuleSetReloader
    package let clock: any EngineClock

    public init(store: any ServerProcessStore, reloader: RuleSetReloader, clock: any EngineClock) {
        self.processId = UUID().uuidString.lowercased()
        self.host = ProcessInfo.processInfo.hostName
        self.pid = Int(ProcessInfo.processInfo.processIdentifier)
        self.startedAt = clock.now()
        self.store = store
        self.reloader = reloader
        self.clock = clock
    }

    /// This process as it is now.
    public func record() -> ServerProcessRecord {
        let status = reloader.status
        return ServerProcessRecord(
            processId: processId, host: host, pid: pid, startedAt: startedAt, seenAt: clock.now(),
            ruleSetVersion: status.version, shadowVersion: status.shadowVersion, rulesRejected: !status.rejected.isEmpty
        )
    }

    /// Writes this process's record.
    public func beat() async throws {
        try await store.recordServerProcess(record())
    }

    /// Every process seen within ``freshness``, this one as it is now whether or not its last write landed.
    public func processes() async throws -> [ServerProcessRecord] {
        let current = record()
        let others = try await store.serverProcesses(seenSince: current.seenAt.addingTimeInterval(-Self.freshness))
            .filter { $0.processId != processId }
        return ([current] + others).sorted { ($0.startedAt, $0.processId) < ($1.startedAt, $1.processId) }
    }
}
