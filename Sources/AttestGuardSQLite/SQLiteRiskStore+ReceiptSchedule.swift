import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func leaseDueReceipts(_ request: ReceiptLeaseRequest) async throws -> [ReceiptLease] {
        let environments = (request.environments ?? Set(AppAttestEnvironment.allCases)).map(\.rawValue).sorted()
        let placeholders = environments.indices.map { "?\($0 + 3)" }.joined(separator: ", ")
        // One process, one writer at a time: select-then-update inside BEGIN IMMEDIATE sees no concurrent worker.
        return try await transaction { connection in
            let due = try await connection.query(
                """
                SELECT r.rowid AS receipt_row, r.*, k.environment AS key_environment, k.public_key AS key_public_key
                FROM receipts r JOIN app_keys k ON k.app_id = r.app_id AND k.key_id = r.key_id
                WHERE k.status = 'active' AND k.environment IN (\(placeholders))
                  AND r.next_refresh_at <= ?1 AND r.dormant_since IS NULL
                  AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= ?1)
                ORDER BY r.next_refresh_at
                LIMIT ?2
                """,
                [SQLiteValues.bind(request.now), .integer(request.limit)] + environments.map { .text($0) }
            )
            guard !due.isEmpty else { return [] }
            let rowIds = try due.map { try SQLiteRowReader(row: $0, table: "receipts").integer("receipt_row") }
            let ids = rowIds.indices.map { "?\($0 + 3)" }.joined(separator: ", ")
            _ = try await connection.query(
                "UPDATE receipts SET lease_owner = ?1, lease_expires_at = ?2 WHERE rowid IN (\(ids))",
                [.text(request.owner), SQLiteValues.bind(request.expiresAt)] + rowIds.map { .integer(SQLiteInt64($0)) }
            )
            return try due.map { row in
                let reader = SQLiteRowReader(row: row, table: "receipts")
                return ReceiptLease(
                    receipt: try ReceiptRecord(sqlite: row),
                    environment: try reader.enumeration("key_environment", as: AppAttestEnvironment.self),
                    publicKey: try reader.blob("key_public_key"),
                    owner: request.owner,
                    expiresAt: request.expiresAt
                )
            }
        }
    }

    public func replaceReceipt(_ replacement: ReceiptReplacement) async throws -> ReceiptReplacementOutcome {
        let new = replacement.receipt
        let owner = replacement.leaseOwner
        let observed = replacement.observedAt
        let key: [SQLiteData] = [.text(new.appId), SQLiteValues.bind(new.keyId)]
        return try await transaction { connection in
            let active = try await connection.query(
                "SELECT 1 FROM app_keys WHERE app_id = ?1 AND key_id = ?2 AND status = 'active'", key
            )
            guard active.count == 1 else {
                try await Self.releaseLease(key: key, owner: owner, on: connection)
                return .keyInactive
            }
            var historyRecorded = false
            if let metric = new.riskMetric {
                historyRecorded = try await connection.query(
                    """
                    INSERT INTO risk_metric_history (app_id, key_id, receipt_created_at, risk_metric, observed_at)
                    VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING RETURNING key_id
                    """,
                    key + [SQLiteValues.bind(new.createdAt), .integer(metric), SQLiteValues.bind(observed)]
                ).count == 1
            }
            let replaced = try await connection.query(
                """
                UPDATE receipts SET receipt_type = ?3, receipt = ?4, created_at = ?5, not_before = ?6, expires_at = ?7,
                    risk_metric = ?8, stored_at = ?9, refreshed_at = ?9, next_refresh_at = ?10, metric_stale = 0,
                    last_outcome = 'redeemed', last_attempt_at = ?9, attempts = 0,
                    lease_owner = CASE WHEN lease_owner = ?11 THEN NULL ELSE lease_owner END,
                    lease_expires_at = CASE WHEN lease_owner = ?11 THEN NULL ELSE lease_expires_at END
                WHERE app_id = ?1 AND key_id = ?2 AND created_at < ?5
                RETURNING key_id
                """,
                key + [
                    .text(new.receiptType.rawValue), SQLiteValues.bind(new.receipt), SQLiteValues.bind(new.createdAt),
                    SQLiteValues.bind(new.notBefore), SQLiteValues.bind(new.expiresAt),
                    SQLiteValues.bind(new.riskMetric.map { Int64($0) }), SQLiteValues.bind(observed),
                    SQLiteValues.bind(new.nextRefreshAt), .text(owner),
                ]
            ).count == 1
            if replaced { return .replaced(historyRecorded: historyRecorded) }
            try await Self.releaseLease(key: key, owner: owner, on: connection)
            return .keptNewer(historyRecorded: historyRecorded)
        }
    }

    public func recordReceiptAttempt(_ attempt: ReceiptAttempt) async throws -> Bool {
        try await query(
            """
            UPDATE receipts SET next_refresh_at = ?4, attempts = ?5, last_attempt_at = ?6, last_outcome = ?7,
                metric_stale = COALESCE(?8, metric_stale), lease_owner = NULL, lease_expires_at = NULL
            WHERE app_id = ?1 AND key_id = ?2 AND lease_owner = ?3
            RETURNING key_id
            """,
            [
                .text(attempt.appId), SQLiteValues.bind(attempt.keyId), .text(attempt.leaseOwner),
                SQLiteValues.bind(attempt.nextRefreshAt), .integer(attempt.attempts), SQLiteValues.bind(attempt.at),
                .text(attempt.outcome), SQLiteValues.bind(attempt.metricStale),
            ]
        ).count == 1
    }

    public func receiptBacklog(at now: Date, retryingSince since: Date) async throws -> ReceiptBacklog {
        let rows = try await query(
            """
            SELECT
                coalesce(sum(r.next_refresh_at <= ?1 AND r.dormant_since IS NULL
                             AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= ?1)), 0) AS due,
                coalesce(sum(r.dormant_since IS NOT NULL), 0) AS dormant,
                coalesce(sum(r.lease_expires_at > ?1), 0) AS leased,
                coalesce(sum(r.attempts > 0 AND r.last_attempt_at >= ?2 AND r.next_refresh_at > ?1
                             AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= ?1)), 0) AS retrying,
                min(CASE WHEN r.lease_expires_at > ?1 THEN r.lease_expires_at END) AS next_lease_expiry,
                min(CASE WHEN r.attempts > 0 AND r.last_attempt_at >= ?2 AND r.next_refresh_at > ?1 THEN r.next_refresh_at END)
                    AS next_retry
            FROM receipts r JOIN app_keys k ON k.app_id = r.app_id AND k.key_id = r.key_id
            WHERE k.status = 'active'
            """,
            [SQLiteValues.bind(now), SQLiteValues.bind(since)]
        )
        guard let row = rows.first else { return ReceiptBacklog(due: 0, leased: 0, retrying: 0, nextAvailableAt: nil) }
        let reader = SQLiteRowReader(row: row, table: "receipts")
        let candidates = [try reader.optionalDate("next_lease_expiry"), try reader.optionalDate("next_retry")].compactMap { $0 }
        return ReceiptBacklog(
            due: Int(try reader.integer("due")),
            leased: Int(try reader.integer("leased")),
            retrying: Int(try reader.integer("retrying")),
            nextAvailableAt: candidates.min(),
            dormant: Int(try reader.integer("dormant"))
        )
    }

    public func riskMetricHistory(appId: String, keyId: Data) async throws -> [RiskMetricObservation] {
        try await query(
            "SELECT * FROM risk_metric_history WHERE app_id = ?1 AND key_id = ?2 ORDER BY receipt_created_at",
            [.text(appId), SQLiteValues.bind(keyId)]
        ).map(RiskMetricObservation.init(sqlite:))
    }

    private static func releaseLease(key: [SQLiteData], owner: String, on connection: SQLiteConnection) async throws {
        _ = try await connection.query(
            "UPDATE receipts SET lease_owner = NULL, lease_expires_at = NULL WHERE app_id = ?1 AND key_id = ?2 AND lease_owner = ?3",
            key + [.text(owner)]
        )
    }
}
