import AttestVocabulary
import Foundation
import NIOCore
import PostgresNIO
import AttestGuardStore

/// `scoringFacts` as one named prepared statement: every verdict runs it, and as separate queries (key, receipt,
/// history, superseded keys, up to three DeviceCheck subjects, the user's DeviceCheck validation, velocity sums) PostgreSQL spends more time parsing
/// and planning them than running them, and each is a round trip. Each part is skipped by its flag or an empty
/// array; the receipt's bytes are never read. One row always comes back: `key_found` says whether the key columns
/// (`app_keys.*`) mean anything. Velocity sums come as one array in the order asked, with the writer's flush
/// sequence from the same snapshot.
struct ScoringFactsStatement: PostgresPreparedStatement {
    typealias Row = ScoringFacts

    static let name = "attestguard_scoring_facts_v6"

    static let sql = """
        WITH k AS (
            SELECT * FROM app_keys WHERE app_id = $1 AND key_id = $2
        ), r AS (
            SELECT receipt_type, risk_metric, metric_stale, refreshed_at FROM receipts WHERE $3 AND app_id = $1 AND key_id = $2
        ), b AS (
            SELECT risk_metric FROM risk_metric_history
            WHERE $4::timestamptz IS NOT NULL AND app_id = $1 AND key_id = $2 AND receipt_created_at <= $4
            ORDER BY receipt_created_at DESC LIMIT 1
        ), s AS (
            SELECT count(*) AS n FROM k JOIN app_keys o
              ON o.app_id = k.app_id AND o.user_id = k.user_id AND o.device_id = k.device_id AND o.status = 'superseded'
            WHERE $5
        ), d AS (
            SELECT d.* FROM unnest($8::text[], $9::text[]) WITH ORDINALITY AS q(kind, subject, i)
            CROSS JOIN unnest($6::text[]) WITH ORDINALITY AS sc(scope, j)
            JOIN devicecheck_bits d
              ON d.scope = sc.scope AND d.environment = coalesce((SELECT environment FROM k), $7)
             AND d.subject_kind = q.kind AND d.subject = q.subject AND d.found
            ORDER BY q.i, sc.j LIMIT 1
        ), dv AS (
            SELECT environment, validated_at FROM devicecheck_validations WHERE $13::text IS NOT NULL AND app_id = $1 AND user_id = $13
        ), vs AS (
            SELECT array_agg(t.total ORDER BY t.i) AS totals FROM (
                SELECT q.i, coalesce(sum(v.count), 0)::int8 AS total
                FROM unnest($10::bytea[], $11::int8[]) WITH ORDINALITY AS q(series, since, i)
                LEFT JOIN velocity_buckets v ON v.series = q.series AND v.bucket >= q.since
                GROUP BY q.i
            ) AS t
        )
        SELECT k.app_id IS NOT NULL AS key_found, k.*,
               r.receipt_type IS NOT NULL AS receipt_found, r.receipt_type AS r_receipt_type, r.risk_metric AS r_risk_metric,
               r.metric_stale AS r_metric_stale, r.refreshed_at AS r_refreshed_at,
               b.risk_metric AS baseline_metric,
               CASE WHEN $5 AND k.device_id IS NOT NULL THEN s.n END AS superseded_keys,
               d.scope IS NOT NULL AS dc_found, d.scope AS dc_scope, d.environment AS dc_environment,
               d.subject_kind AS dc_subject_kind, d.subject AS dc_subject, d.bit0 AS dc_bit0, d.bit1 AS dc_bit1,
               d.last_update_time AS dc_last_update_time, d.observed_at AS dc_observed_at,
               dv.environment AS dv_environment, dv.validated_at AS dv_validated_at,
               vs.totals AS velocity_totals,
               coalesce((SELECT sequence FROM velocity_flushes WHERE writer = $12), 0)::int8 AS velocity_flushed
        FROM (SELECT 1) AS one
        LEFT JOIN k ON true LEFT JOIN r ON true LEFT JOIN b ON true LEFT JOIN s ON true LEFT JOIN d ON true LEFT JOIN dv ON true
        LEFT JOIN vs ON true
        """

    static let bindingDataTypes: [PostgresDataType] = [
        .text, .bytea, .bool, .timestamptz, .bool, .textArray, .text, .textArray, .textArray, .byteaArray, .int8Array, .text, .text,
    ]

    /// ``sql`` with its parameters numbered from `first` (`$1` becomes `$first`), to run inside a larger statement.
    static func sql(parametersFrom first: Int) -> String {
        sql.replacing(/\$([0-9]+)/) { match in "$\(Int(match.1)! + first - 1)" }
    }

    var query: ScoringFactsQuery

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 13)
        try appendBindings(to: &bindings)
        return bindings
    }

    /// Appends the 13 parameters, in order, to `bindings`.
    func appendBindings(to bindings: inout PostgresBindings) throws {
        bindings.append(query.appId)
        try bindings.append(query.keyId)
        bindings.append(query.receipt)
        bindings.append(query.metricBaselineAt)
        bindings.append(query.supersededKeys)
        bindings.append(query.deviceCheck?.scopes.map(\.rawValue) ?? [])
        bindings.append((query.deviceCheck?.defaultEnvironment ?? .production).rawValue)
        bindings.append(query.deviceCheck?.subjects.map(\.kind.rawValue) ?? [])
        bindings.append(query.deviceCheck?.subjects.map(\.value) ?? [])
        bindings.append(query.velocity.map { ByteBuffer(bytes: VelocitySeriesId.make(appId: query.appId, subject: $0.subject, event: $0.event)) })
        bindings.append(query.velocity.map(\.since))
        bindings.append(query.velocityWriter)
        bindings.append(query.deviceCheckValidationUserId)
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let read = PostgresRowReader(row, table: "scoring facts")
        var facts = ScoringFacts()
        if try read("key_found", as: Bool.self) {
            facts.key = try KeyRecord(postgres: row)
        }
        if try read("receipt_found", as: Bool.self) {
            facts.receipt = ReceiptSummary(
                receiptType: ReceiptType(rawValue: try read("r_receipt_type")), riskMetric: try read("r_risk_metric", as: Int32?.self).map(Int.init),
                metricStale: try read("r_metric_stale"), refreshedAt: try read("r_refreshed_at")
            )
        }
        facts.metricBaseline = try read("baseline_metric", as: Int32?.self).map(Int.init)
        facts.supersededKeys = try read("superseded_keys", as: Int64?.self).map(Int.init)
        if try read("dc_found", as: Bool.self) {
            facts.deviceCheck = DeviceCheckRecord(
                scope: DeviceCheckScope(rawValue: try read("dc_scope")), environment: try read.enumeration("dc_environment", as: AppAttestEnvironment.self),
                subject: DeviceCheckSubject(kind: try read.enumeration("dc_subject_kind", as: DeviceCheckSubject.Kind.self), value: try read("dc_subject")),
                bit0: try read("dc_bit0"), bit1: try read("dc_bit1"), found: true,
                lastUpdateTime: try read("dc_last_update_time"), observedAt: try read("dc_observed_at")
            )
        }
        if let userId = query.deviceCheckValidationUserId, let validatedAt = try read("dv_validated_at", as: Date?.self) {
            facts.deviceCheckValidation = DeviceCheckValidationRecord(
                appId: query.appId, userId: userId, environment: try read.enumeration("dv_environment", as: AppAttestEnvironment.self),
                validatedAt: validatedAt
            )
        }
        facts.velocity = VelocityReading(
            totals: try read("velocity_totals", as: [Int64]?.self) ?? [], flushedSequence: try read("velocity_flushed")
        )
        return facts
    }
}
