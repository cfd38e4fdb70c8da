import Foundation
import PostgresNIO
import AttestGuardStore

/// `replaceReceipt` as a named prepared statement: the batch runs it once per redeemed receipt, and parsing and
/// planning its data-modifying CTEs each time cost PostgreSQL more than executing them.
///
/// One statement, so one round trip: `active` holds the key against revocation, `current` locks the receipt row
/// and reads its creation time once, and the two updates take disjoint branches of that reading (replace, or
/// only release the owner's lease), so no row is written twice by the statement. PostgreSQL runs every
/// data-modifying CTE to completion whether or not the final SELECT reads it, so `released` needs no reader.
struct ReplaceReceiptStatement: PostgresPreparedStatement {
    typealias Row = (active: Bool, replaced: Bool, historyRecorded: Bool)

    static let name = "attestguard_replace_receipt_v1"

    static let sql = """
        WITH active AS (
            SELECT 1 FROM app_keys WHERE app_id = $1 AND key_id = $2 AND status = 'active' FOR SHARE
        ), current AS (
            SELECT created_at FROM receipts WHERE app_id = $1 AND key_id = $2 FOR UPDATE
        ), decision AS (
            SELECT EXISTS (SELECT 1 FROM active) AS active,
                EXISTS (SELECT 1 FROM active) AND EXISTS (SELECT 1 FROM current WHERE created_at < $5) AS replace
        ), history AS (
            INSERT INTO risk_metric_history (app_id, key_id, receipt_created_at, risk_metric, observed_at)
            SELECT $1, $2, $5, $8, $9 FROM decision WHERE decision.active AND $8::integer IS NOT NULL
            ON CONFLICT DO NOTHING RETURNING 1
        ), replaced AS (
            UPDATE receipts SET receipt_type = $3, receipt = $4, created_at = $5, not_before = $6, expires_at = $7,
                risk_metric = $8, stored_at = $9, refreshed_at = $9, next_refresh_at = $10, metric_stale = false,
                last_outcome = 'redeemed', last_attempt_at = $9, attempts = 0,
                lease_owner = CASE WHEN lease_owner = $11 THEN NULL ELSE lease_owner END,
                lease_expires_at = CASE WHEN lease_owner = $11 THEN NULL ELSE lease_expires_at END
            FROM decision
            WHERE app_id = $1 AND key_id = $2 AND decision.replace
            RETURNING 1
        ), released AS (
            UPDATE receipts SET lease_owner = NULL, lease_expires_at = NULL
            FROM decision
            WHERE app_id = $1 AND key_id = $2 AND lease_owner = $11 AND NOT decision.replace
        )
        SELECT decision.active, EXISTS (SELECT 1 FROM replaced), EXISTS (SELECT 1 FROM history)
        FROM decision
        """

    static let bindingDataTypes: [PostgresDataType] = [
        .text, .bytea, .text, .bytea, .timestamptz, .timestamptz, .timestamptz, .int4, .timestamptz, .timestamptz, .text,
    ]

    var receipt: ReceiptRecord
    var leaseOwner: String
    var observedAt: Date

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 11)
        bindings.append(receipt.appId)
        try bindings.append(receipt.keyId)
        bindings.append(receipt.receiptType.rawValue)
        try bindings.append(receipt.receipt)
        bindings.append(receipt.createdAt)
        bindings.append(receipt.notBefore)
        bindings.append(receipt.expiresAt)
        bindings.append(receipt.riskMetric.map { Int32(clamping: $0) })
        bindings.append(observedAt)
        bindings.append(receipt.nextRefreshAt)
        bindings.append(leaseOwner)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode((Bool, Bool, Bool).self)
    }
}
