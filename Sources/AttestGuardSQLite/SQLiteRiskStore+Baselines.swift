public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func computeRiskBaseline(appId: String, day: String, at now: Date, by owner: String) async throws -> RiskBaselineOutcome {
        try await transaction { connection in
            let claimed = try await connection.query(
                """
                INSERT INTO risk_metric_baselines (app_id, day, computed_at, computed_by, key_count, share_ge_4, share_ge_10, histogram)
                VALUES (?1, ?2, ?3, ?4, 0, 0, 0, '{}')
                ON CONFLICT (app_id, day) DO NOTHING
                RETURNING 1
                """,
                [.text(appId), .text(day), SQLiteValues.bind(now), .text(owner)]
            )
            guard claimed.count == 1 else { return .alreadyComputed }
            // The metrics in order, counted per value: the percentiles are read off the cumulative counts.
            let counted = try await connection.query(
                """
                SELECT r.risk_metric AS metric, count(*) AS keys
                FROM app_keys k JOIN receipts r ON r.app_id = k.app_id AND r.key_id = k.key_id
                WHERE k.app_id = ?1 AND k.status = 'active' AND r.risk_metric IS NOT NULL AND r.dormant_since IS NULL
                  AND k.environment = (
                      SELECT CASE WHEN EXISTS (
                          SELECT 1 FROM app_keys p WHERE p.app_id = ?1 AND p.status = 'active' AND p.environment = 'production'
                      ) THEN 'production' ELSE 'development' END
                  )
                GROUP BY r.risk_metric ORDER BY r.risk_metric
                """,
                [.text(appId)]
            )
            var histogram: [Int: Int] = [:]
            for row in counted {
                let reader = SQLiteRowReader(row: row, table: "receipts")
                histogram[Int(try reader.integer("metric"))] = Int(try reader.integer("keys"))
            }
            let computed = RiskMetricBaseline(appId: appId, day: day, computedAt: now, computedBy: owner, histogram: histogram)
            let rows = try await connection.query(
                """
                UPDATE risk_metric_baselines SET key_count = ?3, p50 = ?4, p90 = ?5, p99 = ?6, share_ge_4 = ?7, share_ge_10 = ?8, histogram = ?9
                WHERE app_id = ?1 AND day = ?2
                RETURNING *
                """,
                [
                    .text(appId), .text(day), .integer(computed.keyCount), SQLiteValues.bind(computed.p50.map(Int64.init)),
                    SQLiteValues.bind(computed.p90.map(Int64.init)), SQLiteValues.bind(computed.p99.map(Int64.init)),
                    .float(computed.shareAtLeast4), .float(computed.shareAtLeast10), .text(computed.histogramJSON),
                ]
            )
            guard let row = rows.first else { throw StoreError(.corruptRow, "risk_metric_baselines row claimed but not updated") }
            return .computed(try RiskMetricBaseline(sqlite: row))
        }
    }

    public func latestRiskBaselines() async throws -> [RiskMetricBaseline] {
        try await query(
            """
            SELECT * FROM risk_metric_baselines b
            WHERE b.day = (SELECT max(day) FROM risk_metric_baselines WHERE app_id = b.app_id)
            ORDER BY b.app_id
            """
        ).map(RiskMetricBaseline.init(sqlite:))
    }

    public func riskBaselineHistory(appId: String, limit: Int) async throws -> [RiskMetricBaseline] {
        try await query(
            "SELECT * FROM risk_metric_baselines WHERE app_id = ?1 ORDER BY day DESC LIMIT ?2",
            [.text(appId), .integer(max(limit, 0))]
        ).map(RiskMetricBaseline.init(sqlite:))
    }
}

extension RiskMetricBaseline {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "risk_metric_baselines")
        self.init(
            appId: try reader.text("app_id"), day: try reader.text("day"), computedAt: try reader.date("computed_at"),
            computedBy: try reader.text("computed_by"), keyCount: Int(try reader.integer("key_count")),
            p50: try reader.optionalInteger("p50").map { Int($0) }, p90: try reader.optionalInteger("p90").map { Int($0) },
            p99: try reader.optionalInteger("p99").map { Int($0) },
            shareAtLeast4: try reader.real("share_ge_4"), shareAtLeast10: try reader.real("share_ge_10"),
            histogram: Self.histogram(json: try reader.text("histogram"))
        )
    }
}
