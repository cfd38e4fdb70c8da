import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func countAttestationOutcome(appId: String, periodStart: Int64, outcome: AttestationOutcomeKind, count: Int64) async throws {
        _ = try await query(
            """
            INSERT INTO attestation_outcomes AS stored (app_id, period_start, outcome, count) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (app_id, period_start, outcome) DO UPDATE SET count = stored.count + excluded.count
            """,
            [.text(appId), .integer(Int(periodStart)), .text(outcome.rawValue), .integer(Int(count))]
        )
    }

    public func countAttestationOutcome(appId: String, periodStart: Int64, outcome: AttestationOutcomeKind, reporter: String) async throws -> Bool {
        let values: [SQLiteData] = [.text(appId), .integer(Int(periodStart)), .text(outcome.rawValue), .text(reporter)]
        return try await transaction { connection in
            let first = try await connection.query(
                """
                INSERT INTO attestation_outcome_reporters (app_id, period_start, outcome, reporter) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT DO NOTHING RETURNING 1
                """,
                values
            )
            guard !first.isEmpty else { return false }
            _ = try await connection.query(
                """
                INSERT INTO attestation_outcomes AS stored (app_id, period_start, outcome, count) VALUES (?1, ?2, ?3, 1)
                ON CONFLICT (app_id, period_start, outcome) DO UPDATE SET count = stored.count + excluded.count
                """,
                Array(values.prefix(3))
            )
            return true
        }
    }

    public func purgeAttestationOutcomeReporters(appId: String, before periodStart: Int64) async throws {
        _ = try await query(
            "DELETE FROM attestation_outcome_reporters WHERE app_id = ?1 AND period_start < ?2", [.text(appId), .integer(Int(periodStart))]
        )
    }

    public func attestationOutcomeCounts(appId: String, periodStart: Int64) async throws -> AttestationOutcomeCounts {
        var counts = AttestationOutcomeCounts()
        let rows = try await query(
            "SELECT outcome, count FROM attestation_outcomes WHERE app_id = ?1 AND period_start = ?2", [.text(appId), .integer(Int(periodStart))]
        )
        for row in rows {
            let reader = SQLiteRowReader(row: row, table: "attestation_outcomes")
            if let kind = AttestationOutcomeKind(rawValue: try reader.text("outcome")) { counts[kind] = try reader.integer("count") }
        }
        return counts
    }

    public func attestationRamps() async throws -> [AttestationRampRecord] {
        try await query("SELECT * FROM attestation_ramps ORDER BY app_id").map(AttestationRampRecord.init(sqlite:))
    }

    public func replaceAttestationRamp(_ ramp: AttestationRampRecord, expectedRevision: Int64) async throws -> Bool {
        try await query(
            """
            INSERT INTO attestation_ramps AS stored
                (app_id, percent, state, evaluated_period, period_attempts, period_successes, period_rate_limited, last_step_at,
                 revision, updated_at, updated_by)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            ON CONFLICT (app_id) DO UPDATE SET
                percent = excluded.percent, state = excluded.state, evaluated_period = excluded.evaluated_period,
                period_attempts = excluded.period_attempts, period_successes = excluded.period_successes,
                period_rate_limited = excluded.period_rate_limited, last_step_at = excluded.last_step_at,
                revision = excluded.revision, updated_at = excluded.updated_at, updated_by = excluded.updated_by
            WHERE stored.revision = ?12
            RETURNING 1
            """,
            [
                .text(ramp.appId), .integer(ramp.percent), .text(ramp.state), SQLiteValues.bind(ramp.evaluatedPeriod),
                SQLiteValues.bind(ramp.periodAttempts), SQLiteValues.bind(ramp.periodSuccesses), SQLiteValues.bind(ramp.periodRateLimited),
                SQLiteValues.bind(ramp.lastStepAt), SQLiteValues.bind(expectedRevision + 1), SQLiteValues.bind(ramp.updatedAt),
                .text(ramp.updatedBy), SQLiteValues.bind(expectedRevision),
            ]
        ).count == 1
    }
}

extension AttestationRampRecord {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "attestation_ramps")
        self.init(
            appId: try reader.text("app_id"), percent: Int(try reader.integer("percent")), state: try reader.text("state"),
            evaluatedPeriod: try reader.integer("evaluated_period"), periodAttempts: try reader.integer("period_attempts"),
            periodSuccesses: try reader.integer("period_successes"), periodRateLimited: try reader.integer("period_rate_limited"),
            lastStepAt: try reader.optionalDate("last_step_at"), revision: try reader.integer("revision"),
            updatedAt: try reader.date("updated_at"), updatedBy: try reader.text("updated_by")
        )
    }
}
