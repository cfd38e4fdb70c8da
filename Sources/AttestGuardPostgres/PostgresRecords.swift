import Foundation
import PostgresNIO
import AttestVocabulary
import AttestGuardStore

/// Typed reads of one PostgreSQL row by column name, failing with ``StoreError/Code/corruptRow``.
struct PostgresRowReader {
    let row: PostgresRandomAccessRow
    let table: String
    /// Finds cells by position when the row's statement learns its layout (``PostgresColumnLayout``).
    private let cursor: PostgresColumnCursor?

    init(_ row: PostgresRow, table: String) {
        self.init(row.makeRandomAccess(), table: table)
    }

    /// A reader of a row made random-access already: a row read in several parts (a batch's entry index, its answer,
    /// its facts, the key in them) indexes its cells once (``PostgresRow/makeRandomAccess()`` walks every column).
    init(_ row: PostgresRandomAccessRow, table: String) {
        self.row = row
        self.table = table
        cursor = nil
    }

    /// A reader that finds cells by their position in the rows of `statement` (one type per statement and shape),
    /// for the rows a verdict reads: its parts (``reading(table:)``) share where the last read was.
    init(_ row: PostgresRandomAccessRow, table: String, layoutOf statement: Any.Type) {
        self.row = row
        self.table = table
        cursor = PostgresColumnCursor(statement: statement, row: row)
    }

    private init(_ row: PostgresRandomAccessRow, table: String, cursor: PostgresColumnCursor?) {
        self.row = row
        self.table = table
        self.cursor = cursor
    }

    /// A reader of the same row, naming `table` in its errors: a part of the row (the key's columns in the facts).
    func reading(table: String) -> PostgresRowReader {
        PostgresRowReader(row, table: table, cursor: cursor)
    }

    func callAsFunction<Value: PostgresDecodable>(_ column: String, as type: Value.Type = Value.self) throws -> Value {
        let cell: PostgresCell
        if let found = cursor?.cell(named: column) {
            cell = found
        } else {
            guard row.contains(column) else {
                throw StoreError(.corruptRow, "\(table) row has no column \(column)")
            }
            cell = row[column]
        }
        do {
            return try cell.decode(Value.self)
        } catch {
            throw StoreError(.corruptRow, "\(table).\(column) cannot be read as \(Value.self): \(String(reflecting: error))")
        }
    }

    func enumeration<Value: RawRepresentable>(_ column: String, as type: Value.Type) throws -> Value
    where Value.RawValue == String {
        let raw: String = try self(column)
        guard let value = Value(rawValue: raw) else {
            throw StoreError(.corruptRow, "\(table).\(column) has unknown value \(raw)")
        }
        return value
    }
}

extension ChallengeRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "challenges")
        self.init(
            challenge: NewChallenge(
                id: try read("id"),
                appId: try read("app_id"),
                purpose: try read.enumeration("purpose", as: ChallengePurpose.self),
                userId: try read("user_id"),
                keyId: try read("key_id"),
                apiKeyName: try read("api_key_name"),
                clientHash: try read("client_hash"),
                issuedAt: try read("issued_at"),
                expiresAt: try read("expires_at")
            ),
            consumedAt: try read("consumed_at"),
            consumedByKeyId: try read("consumed_key_id"),
            consumedCounter: try read("consumed_counter")
        )
    }
}

extension KeyRecord {
    init(postgres row: PostgresRow) throws {
        try self.init(postgres: PostgresRowReader(row, table: "app_keys"))
    }

    /// The key in the `app_keys` columns `read` reads.
    init(postgres read: PostgresRowReader) throws {
        self.init(
            appId: try read("app_id"),
            keyId: try read("key_id"),
            userId: try read("user_id"),
            deviceId: try read("device_id"),
            environment: try read.enumeration("environment", as: AppAttestEnvironment.self),
            publicKey: try read("public_key"),
            counter: try read("counter"),
            status: try read.enumeration("status", as: KeyStatus.self),
            attestationSHA256: try read("attestation_sha256"),
            osVersion: try read("os_version"),
            attestedAt: try read("attested_at"),
            lastAssertionAt: try read("last_assertion_at"),
            statusChangedAt: try read("status_changed_at"),
            supersededBy: try read("superseded_by"),
            registrationChallengeSHA256: try read("registration_challenge_sha256"),
            registrationChallengeExpiresAt: try read("registration_challenge_expires_at"),
            validationCategory: try read("validation_category", as: Int64?.self).map { ValidationCategory(number: UInt32(clamping: $0)) },
            bundleVersion: try read("bundle_version")
        )
    }
}

extension ReceiptRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "receipts")
        self.init(
            appId: try read("app_id"),
            keyId: try read("key_id"),
            receiptType: ReceiptType(rawValue: try read("receipt_type")),
            receipt: try read("receipt"),
            createdAt: try read("created_at"),
            notBefore: try read("not_before"),
            expiresAt: try read("expires_at"),
            riskMetric: try read("risk_metric", as: Int32?.self).map { Int($0) },
            storedAt: try read("stored_at"),
            nextRefreshAt: try read("next_refresh_at"),
            refreshedAt: try read("refreshed_at"),
            metricStale: try read("metric_stale"),
            lastOutcome: try read("last_outcome"),
            lastAttemptAt: try read("last_attempt_at"),
            attempts: Int(try read("attempts", as: Int32.self))
        )
    }
}

extension ReceiptLease {
    /// A row of `receipts` returned with its key's `key_environment` and `key_public_key`.
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "receipts")
        self.init(
            receipt: try ReceiptRecord(postgres: row),
            environment: try read.enumeration("key_environment", as: AppAttestEnvironment.self),
            publicKey: try read("key_public_key"),
            owner: try read("lease_owner"),
            expiresAt: try read("lease_expires_at")
        )
    }
}

extension RiskMetricObservation {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "risk_metric_history")
        self.init(
            appId: try read("app_id"),
            keyId: try read("key_id"),
            riskMetric: Int(try read("risk_metric", as: Int32.self)),
            receiptCreatedAt: try read("receipt_created_at"),
            observedAt: try read("observed_at")
        )
    }
}

extension DeviceCheckRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "devicecheck_bits")
        self.init(
            scope: DeviceCheckScope(rawValue: try read("scope")),
            environment: try read.enumeration("environment", as: AppAttestEnvironment.self),
            subject: DeviceCheckSubject(kind: try read.enumeration("subject_kind", as: DeviceCheckSubject.Kind.self), value: try read("subject")),
            bit0: try read("bit0"),
            bit1: try read("bit1"),
            found: try read("found"),
            lastUpdateTime: try read("last_update_time"),
            observedAt: try read("observed_at")
        )
    }
}

extension DeviceCheckValidationRecord {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "devicecheck_validations")
        self.init(
            appId: try read("app_id"), userId: try read("user_id"),
            environment: try read.enumeration("environment", as: AppAttestEnvironment.self), validatedAt: try read("validated_at")
        )
    }
}
