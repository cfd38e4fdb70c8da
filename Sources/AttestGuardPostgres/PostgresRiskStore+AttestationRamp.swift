import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func countAttestationOutcome(appId: String, periodStart: Int64, outcome: AttestationOutcomeKind, count: Int64) async throws {
        _ = try await rows(
            """
            INSERT INTO attestation_outcomes AS stored (app_id, period_start, outcome, count)
            VALUES (\(appId), \(periodStart), \(outcome.rawValue), \(count))
            ON CONFLICT (app_id, period_start, outcome) DO UPDATE SET count = stored.count + excluded.count
            """
        )
    }

    public func countAttestationOutcome(appId: String, periodStart: Int64, outcome: AttestationOutcomeKind, reporter: String) async throws -> Bool {
        try await rows(
            """
            WITH first AS (
                INSERT INTO attestation_outcome_reporters (app_id, period_start, reporter, outcome)
                VALUES (\(appId), \(periodStart), \(reporter), \(outcome.rawValue))
                ON CONFLICT DO NOTHING
                RETURNING 1
            )
            INSERT INTO attestation_outcomes AS stored (app_id, period_start, outcome, count)
            SELECT \(appId), \(periodStart), \(outcome.rawValue), 1 FROM first
            ON CONFLICT (app_id, period_start, outcome) DO UPDATE SET count = stored.count + excluded.count
            RETURNING 1
            """
        ).count == 1
    }

    public func purgeAttestationOutcomeReporters(appId: String, before periodStart: Int64) async throws {
        _ = try await rows("DELETE FROM attestation_outcome_reporters WHERE app_id = \(appId) AND period_start < \(periodStart)")
    }

    public func attestationOutcomeCounts(appId: String, periodStart: Int64) async throws -> AttestationOutcomeCounts {
        var counts = AttestationOutcomeCounts()
        for row in try await rows("SELECT outcome, count FROM attestation_outcomes WHERE app_id = \(appId) AND period_start = \(periodStart)") {
            let read = PostgresRowReader(row, table: "attestation_outcomes")
            if let kind = AttestationOutcomeKind(rawValue: try read("outcome", as: String.self)) { counts[kind] = try read("count", as: Int64.self) }
        }
        return counts
    }

    public func attestationRamps() async throws -> [AttestationRampRecord] {
        try await rows("SELECT * FROM attestation_ramps ORDER BY app_id").map(AttestationRampRecord.init(postgres:))
    }

    public func replaceAttestationRamp(_ ramp: AttestationRampRecord, expectedRevision: Int64) async throws -> Bool {
        try await rows(
            """
            INSERT INTO attestation_ramps AS stored
                (app_id, percent, state, evaluated_period, period_attempts, period_successes, period_rate_limited, last_step_at,
                 revision, updated_at, updated_by)
            VALUES (\(ramp.appId), \(Int32(clamping: ramp.percent)), \(ramp.state), \(ramp.evaluatedPeriod), \(ramp.periodAttempts),
                \(ramp.periodSuccesses), \(ramp.periodRateLimited), \(ramp.lastStepAt), \(expectedRevision + 1), \(ramp.updatedAt), \(ramp.updatedBy))
            ON CONFLICT (app_id) DO UPDATE SET
                percent = excluded.percent, state = excluded.state, evaluated_period = excluded.evaluated_period,
                period_attempts = excluded.period_attempts, period_successes = excluded.period_successes,
                period_rate_limited = excluded.period_rate_limited, last_step_at = excluded.last_step_at,
                revision = excluded.revision, updated_at = excluded.updated_at, updated_by = excluded.updated_by
            WHERE stored.revision = \(expectedRevision)
            RETURNING 1
            """
        ).count == 1
    }
}

extension AttestationRampRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "attestation_ramps")
        self.init(
            appId: try read("app_id"), percent: Int(try read("percent", as: Int32.self)), state: try read("state"),
            evaluatedPeriod: try read("evaluated_period"), periodAttempts: try read("period_attempts"),
            periodSuccesses: try read("period_successes"), periodRateLimited: try read("period_rate_limited"),
            lastStepAt: try read("last_step_at"), revision: try read("revision"), updatedAt: try read("updated_at"), updatedBy: try read("updated_by")
        )
    }
}
