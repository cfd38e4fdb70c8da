import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func addGatewayChecks(_ counts: [GatewayCheckCount]) async throws {
        let merged = counts.mergedInLockOrder
        guard !merged.isEmpty else { return }
        let statements = SQLiteRowStatements(
            "INSERT INTO gateway_checks AS stored (bucket_start, app_id, route, outcome, passed, count) VALUES",
            rows: merged.map { count in
                [.integer(Int(count.bucketStart)), .text(count.appId), .text(count.route), .text(count.outcome),
                 .integer(count.passed ? 1 : 0), .integer(Int(count.count))]
            },
            width: 6,
            "ON CONFLICT (app_id, bucket_start, route, outcome, passed) DO UPDATE SET count = stored.count + excluded.count"
        )
        _ = try await transaction { try await statements.run(on: $0) }
    }

    public func gatewayChecks(appId: String, from: Int64, to: Int64, limit: Int) async throws -> [GatewayCheckCount] {
        try await query(
            """
            SELECT route, outcome, passed, sum(count) AS count FROM gateway_checks
            WHERE app_id = ?1 AND bucket_start >= ?2 AND bucket_start < ?3
            GROUP BY route, outcome, passed ORDER BY route, outcome, passed LIMIT ?4
            """,
            [.text(appId), .integer(Int(from)), .integer(Int(to)), .integer(max(limit, 0))]
        ).map { row in
            let read = SQLiteRowReader(row: row, table: "gateway_checks")
            return GatewayCheckCount(
                appId: appId, route: try read.text("route"), outcome: try read.text("outcome"), passed: try read.integer("passed") != 0,
                bucketStart: from, count: try read.integer("count")
            )
        }
    }

    public func purgeGatewayChecks(before: Int64) async throws -> Int {
        try await query("DELETE FROM gateway_checks WHERE bucket_start < ?1 RETURNING 1", [.integer(Int(before))]).count
    }
}
