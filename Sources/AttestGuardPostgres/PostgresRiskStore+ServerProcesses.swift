public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func recordServerProcess(_ record: ServerProcessRecord) async throws {
        _ = try await rows(
            """
            INSERT INTO server_processes (process_id, host, pid, started_at, seen_at, rule_set_version, shadow_version, rules_rejected)
            VALUES (\(record.processId), \(record.host), \(Int32(clamping: record.pid)), \(record.startedAt), \(record.seenAt),
                \(record.ruleSetVersion), \(record.shadowVersion), \(record.rulesRejected))
            ON CONFLICT (process_id) DO UPDATE SET
                seen_at = excluded.seen_at, rule_set_version = excluded.rule_set_version,
                shadow_version = excluded.shadow_version, rules_rejected = excluded.rules_rejected
            """
        )
    }

    public func serverProcesses(seenSince since: Date) async throws -> [ServerProcessRecord] {
        try await rows("SELECT * FROM server_processes WHERE seen_at >= \(since) ORDER BY started_at, process_id")
            .map(ServerProcessRecord.init(postgres:))
    }

    public func purgeServerProcesses(seenBefore before: Date) async throws -> Int {
        try await rows("DELETE FROM server_processes WHERE seen_at < \(before) RETURNING 1").count
    }
}

extension ServerProcessRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "server_processes")
        self.init(
            processId: try read("process_id"), host: try read("host"), pid: Int(try read("pid", as: Int32.self)),
            startedAt: try read("started_at"), seenAt: try read("seen_at"), ruleSetVersion: try read("rule_set_version"),
            shadowVersion: try read("shadow_version"), rulesRejected: try read("rules_rejected")
        )
    }
}
