import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func leaseDueReceipts(_ request: ReceiptLeaseRequest) async throws -> [ReceiptLease] {
        let environments = (request.environments ?? Set(AppAttestEnvironment.allCases)).map(\.rawValue)
        // SKIP LOCKED: concurrent workers each take different rows instead of queueing on the same ones.
        return try await rows(
            """
            WITH due AS (
                SELECT r.app_id, r.key_id
                FROM receipts r JOIN app_keys k ON k.app_id = r.app_id AND k.key_id = r.key_id
                WHERE k.status = 'active' AND k.environment = ANY(\(environments))
                  AND r.next_refresh_at <= \(request.now) AND r.dormant_since IS NULL
                  AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= \(request.now))
                ORDER BY r.next_refresh_at
                LIMIT \(Int32(clamping: request.limit))
                FOR UPDATE OF r SKIP LOCKED
            )
            UPDATE receipts r SET lease_owner = \(request.owner), lease_expires_at = \(request.expiresAt)
            FROM due, app_keys k
            WHERE r.app_id = due.app_id AND r.key_id = due.key_id AND k.app_id = r.app_id AND k.key_id = r.key_id
            RETURNING r.*, k.environment AS key_environment, k.public_key AS key_public_key
            """
        ).map(ReceiptLease.init(postgres:))
    }

    public func replaceReceipt(_ replacement: ReceiptReplacement) async throws -> ReceiptReplacementOutcome {
        let statement = ReplaceReceiptStatement(receipt: replacement.receipt, leaseOwner: replacement.leaseOwner, observedAt: replacement.observedAt)
        guard let result = try await execute(statement).first else { throw StoreError(.queryFailed, "replaceReceipt returned no row") }
        guard result.active else { return .keyInactive }
        return result.replaced ? .replaced(historyRecorded: result.historyRecorded) : .keptNewer(historyRecorded: result.historyRecorded)
    }

    public func recordReceiptAttempt(_ attempt: ReceiptAttempt) async throws -> Bool {
        try await rows(
            """
            UPDATE receipts SET next_refresh_at = \(attempt.nextRefreshAt), attempts = \(Int32(clamping: attempt.attempts)),
                last_attempt_at = \(attempt.at), last_outcome = \(attempt.outcome),
                metric_stale = COALESCE(\(attempt.metricStale)::boolean, metric_stale),
                lease_owner = NULL, lease_expires_at = NULL
            WHERE app_id = \(attempt.appId) AND key_id = \(attempt.keyId) AND lease_owner = \(attempt.leaseOwner)
            RETURNING key_id
            """
        ).count == 1
    }

    public func receiptBacklog(at now: Date, retryingSince since: Date) async throws -> ReceiptBacklog {
        let row = try await rows(
            """
            SELECT
                count(*) FILTER (WHERE r.next_refresh_at <= \(now) AND r.dormant_since IS NULL
                                   AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= \(now))) AS due,
                count(*) FILTER (WHERE r.dormant_since IS NOT NULL) AS dormant,
                count(*) FILTER (WHERE r.lease_expires_at > \(now)) AS leased,
                count(*) FILTER (WHERE r.attempts > 0 AND r.last_attempt_at >= \(since) AND r.next_refresh_at > \(now)
                                   AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= \(now))) AS retrying,
                least(
                    min(r.lease_expires_at) FILTER (WHERE r.lease_expires_at > \(now)),
                    min(r.next_refresh_at) FILTER (WHERE r.attempts > 0 AND r.last_attempt_at >= \(since) AND r.next_refresh_at > \(now))
                ) AS next_available_at
            FROM receipts r JOIN app_keys k ON k.app_id = r.app_id AND k.key_id = r.key_id
            WHERE k.status = 'active'
            """
        )
        guard let first = row.first else { return ReceiptBacklog(due: 0, leased: 0, retrying: 0, nextAvailableAt: nil) }
        let read = PostgresRowReader(first, table: "receipts")
        return ReceiptBacklog(
            due: Int(try read("due", as: Int64.self)),
            leased: Int(try read("leased", as: Int64.self)),
            retrying: Int(try read("retrying", as: Int64.self)),
            nextAvailableAt: try read("next_available_at", as: Date?.self),
            dormant: Int(try read("dormant", as: Int64.self))
        )
    }

    public func riskMetricHistory(appId: String, keyId: Data) async throws -> [RiskMetricObservation] {
        try await rows(
            "SELECT * FROM risk_metric_history WHERE app_id = \(appId) AND key_id = \(keyId) ORDER BY receipt_created_at"
        ).map(RiskMetricObservation.init(postgres:))
    }
}
