import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func addGatewayChecks(_ counts: [GatewayCheckCount]) async throws {
        let merged = counts.mergedInLockOrder
        guard !merged.isEmpty else { return }
        _ = try await rows(
            """
            INSERT INTO gateway_checks AS stored (bucket_start, app_id, route, outcome, passed, count)
            SELECT * FROM unnest(\(merged.map(\.bucketStart))::int8[], \(merged.map(\.appId))::text[], \(merged.map(\.route))::text[],
                                 \(merged.map(\.outcome))::text[], \(merged.map(\.passed))::bool[], \(merged.map(\.count))::int8[])
            ON CONFLICT (app_id, bucket_start, route, outcome, passed) DO UPDATE SET count = stored.count + excluded.count
            """
        )
    }

    public func gatewayChecks(appId: String, from: Int64, to: Int64, limit: Int) async throws -> [GatewayCheckCount] {
        try await laggingRows(
            """
            SELECT route, outcome, passed, sum(count)::int8 AS count FROM gateway_checks
            WHERE app_id = \(appId) AND bucket_start >= \(from) AND bucket_start < \(to)
            GROUP BY route, outcome, passed ORDER BY route, outcome, passed LIMIT \(Int32(clamping: max(limit, 0)))
            """
        ).map { row in
            let read = PostgresRowReader(row, table: "gateway_checks")
            return GatewayCheckCount(
                appId: appId, route: try read("route", as: String.self), outcome: try read("outcome", as: String.self),
                passed: try read("passed", as: Bool.self), bucketStart: from, count: try read("count", as: Int64.self)
            )
        }
    }

    public func purgeGatewayChecks(before: Int64) async throws -> Int {
        try await rows("DELETE FROM gateway_checks WHERE bucket_start < \(before) RETURNING 1").count
    }
}
