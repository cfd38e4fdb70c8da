public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func computeRiskBaseline(appId: String, day: String, at now: Date, by owner: String) async throws -> RiskBaselineOutcome {
        let logger = self.logger
        return try await transaction { connection in
            // The claim: a concurrent call waits here on the primary key until this transaction ends, then inserts
            // nothing. A rollback (a failure below) frees the day for the next run.
            let claimed = try await connection.query(
                """
                INSERT INTO risk_metric_baselines (app_id, day, computed_at, computed_by, key_count, share_ge_4, share_ge_10, histogram)
                VALUES (\(appId), \(day)::date, \(now), \(owner), 0, 0, 0, '{}')
                ON CONFLICT (app_id, day) DO NOTHING
                RETURNING 1
                """,
                logger: logger
            ).collect()
            guard claimed.count == 1 else { return .alreadyComputed }
            let rows = try await connection.query(
                """
                WITH metrics AS (
                    SELECT r.risk_metric
                    FROM app_keys k JOIN receipts r ON r.app_id = k.app_id AND r.key_id = k.key_id
                    WHERE k.app_id = \(appId) AND k.status = 'active' AND r.risk_metric IS NOT NULL AND r.dormant_since IS NULL
                      AND k.environment = (
                          SELECT CASE WHEN EXISTS (
                              SELECT 1 FROM app_keys p WHERE p.app_id = \(appId) AND p.status = 'active' AND p.environment = 'production'
                          ) THEN 'production' ELSE 'development' END
                      )
                ), distribution AS (
                    SELECT count(*)::integer AS key_count,
                        percentile_disc(0.5) WITHIN GROUP (ORDER BY risk_metric) AS p50,
                        percentile_disc(0.9) WITHIN GROUP (ORDER BY risk_metric) AS p90,
                        percentile_disc(0.99) WITHIN GROUP (ORDER BY risk_metric) AS p99,
                        coalesce(avg((risk_metric >= 4)::integer), 0)::float8 AS share_ge_4,
                        coalesce(avg((risk_metric >= 10)::integer), 0)::float8 AS share_ge_10
                    FROM metrics
                ), histogram AS (
                    SELECT coalesce(json_object_agg(risk_metric, keys ORDER BY risk_metric)::text, '{}') AS histogram
                    FROM (SELECT risk_metric, count(*) AS keys FROM metrics GROUP BY risk_metric) counted
                )
                UPDATE risk_metric_baselines AS b SET
                    key_count = d.key_count, p50 = d.p50, p90 = d.p90, p99 = d.p99,
                    share_ge_4 = d.share_ge_4, share_ge_10 = d.share_ge_10, histogram = h.histogram
                FROM distribution d, histogram h
                WHERE b.app_id = \(appId) AND b.day = \(day)::date
                RETURNING \(unescaped: Self.baselineColumns)
                """,
                logger: logger
            ).collect()
            guard let row = rows.first else { throw StoreError(.corruptRow, "risk_metric_baselines row claimed but not updated") }
            return .computed(try RiskMetricBaseline(postgres: row))
        }
    }

    public func latestRiskBaselines() async throws -> [RiskMetricBaseline] {
        try await rows(
            """
            SELECT \(unescaped: Self.baselineColumns) FROM risk_metric_baselines b
            WHERE b.day = (SELECT max(day) FROM risk_metric_baselines WHERE app_id = b.app_id)
            ORDER BY b.app_id
            """
        ).map(RiskMetricBaseline.init(postgres:))
    }

    public func riskBaselineHistory(appId: String, limit: Int) async throws -> [RiskMetricBaseline] {
        try await rows(
            """
            SELECT \(unescaped: Self.baselineColumns) FROM risk_metric_baselines b
            WHERE b.app_id = \(appId) ORDER BY b.day DESC LIMIT \(Int32(clamping: max(limit, 0)))
            """
        ).map(RiskMetricBaseline.init(postgres:))
    }

    /// The columns of a baseline row aliased `b`, with the day as `YYYY-MM-DD` text.
    static let baselineColumns = """
        b.app_id, to_char(b.day, 'YYYY-MM-DD') AS day, b.computed_at, b.computed_by, b.key_count, b.p50, b.p90, b.p99, \
        b.share_ge_4, b.share_ge_10, b.histogram
        """
}

extension RiskMetricBaseline {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "risk_metric_baselines")
        self.init(
            appId: try read("app_id"), day: try read("day"), computedAt: try read("computed_at"), computedBy: try read("computed_by"),
            keyCount: Int(try read("key_count", as: Int32.self)),
            p50: try read("p50", as: Int32?.self).map(Int.init), p90: try read("p90", as: Int32?.self).map(Int.init),
            p99: try read("p99", as: Int32?.self).map(Int.init),
            shareAtLeast4: try read("share_ge_4"), shareAtLeast10: try read("share_ge_10"),
            histogram: Self.histogram(json: try read("histogram"))
        )
    }
}
