public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func recordServerProcess(_ record: ServerProcessRecord) async throws {
        _ = try await query(
            """
            INSERT INTO server_processes (process_id, host, pid, started_at, seen_at, rule_set_version, shadow_version, rules_rejected)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            ON CONFLICT (process_id) DO UPDATE SET
                seen_at = excluded.seen_at, rule_set_version = excluded.rule_set_version,
                shadow_version = excluded.shadow_version, rules_rejected = excluded.rules_rejected
            """,
            [
                .text(record.processId), .text(record.host), .integer(record.pid), SQLiteValues.bind(record.startedAt),
                SQLiteValues.bind(record.seenAt), .text(record.ruleSetVersion), SQLiteValues.bind(record.shadowVersion),
                SQLiteValues.bind(record.rulesRejected),
            ]
        )
    }

    public func serverProcesses(seenSince since: Date) async throws -> [ServerProcessRecord] {
        try await query(
            "SELECT * FROM server_processes WHERE seen_at >= ?1 ORDER BY started_at, process_id", [SQLiteValues.bind(since)]
        ).map(ServerProcessRecord.init(sqlite:))
    }

    public func purgeServerProcesses(seenBefore before: Date) async throws -> Int {
        try await query("DELETE FROM server_processes WHERE seen_at < ?1 RETURNING 1", [SQLiteValues.bind(before)]).count
    }
}

extension ServerProcessRecord {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "server_processes")
        self.init(
            processId: try reader.text("process_id"), host: try reader.text("host"), pid: Int(try reader.integer("pid")),
            startedAt: try reader.date("started_at"), seenAt: try reader.date("seen_at"),
            ruleSetVersion: try reader.text("rule_set_version"), shadowVersion: try reader.optionalText("shadow_version"),
            rulesRejected: try reader.integer("rules_rejected") != 0
        )
    }
}
