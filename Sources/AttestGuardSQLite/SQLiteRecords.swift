import Foundation
import SQLiteNIO
import AttestVocabulary
import AttestGuardStore

extension ChallengeRecord {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "challenges")
        self.init(
            challenge: NewChallenge(
                id: try reader.blob("id"),
                appId: try reader.text("app_id"),
                purpose: try reader.enumeration("purpose", as: ChallengePurpose.self),
                userId: try reader.optionalText("user_id"),
                keyId: try reader.optionalBlob("key_id"),
                apiKeyName: try reader.optionalText("api_key_name"),
                clientHash: try reader.optionalText("client_hash"),
                issuedAt: try reader.date("issued_at"),
                expiresAt: try reader.date("expires_at")
            ),
            consumedAt: try reader.optionalDate("consumed_at"),
            consumedByKeyId: try reader.optionalBlob("consumed_key_id"),
            consumedCounter: try reader.optionalInteger("consumed_counter")
        )
    }
}

extension KeyRecord {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "app_keys")
        self.init(
            appId: try reader.text("app_id"),
            keyId: try reader.blob("key_id"),
            userId: try reader.text("user_id"),
            deviceId: try reader.optionalText("device_id"),
            environment: try reader.enumeration("environment", as: AppAttestEnvironment.self),
            publicKey: try reader.blob("public_key"),
            counter: try reader.integer("counter"),
            status: try reader.enumeration("status", as: KeyStatus.self),
            attestationSHA256: try reader.blob("attestation_sha256"),
            osVersion: try reader.optionalText("os_version"),
            attestedAt: try reader.date("attested_at"),
            lastAssertionAt: try reader.optionalDate("last_assertion_at"),
            statusChangedAt: try reader.optionalDate("status_changed_at"),
            supersededBy: try reader.optionalBlob("superseded_by"),
            registrationChallengeSHA256: try reader.optionalBlob("registration_challenge_sha256"),
            registrationChallengeExpiresAt: try reader.optionalDate("registration_challenge_expires_at"),
            validationCategory: try reader.optionalInteger("validation_category").map { ValidationCategory(number: UInt32(clamping: $0)) },
            bundleVersion: try reader.optionalText("bundle_version")
        )
    }
}

extension ReceiptRecord {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "receipts")
        self.init(
            appId: try reader.text("app_id"),
            keyId: try reader.blob("key_id"),
            receiptType: ReceiptType(rawValue: try reader.text("receipt_type")),
            receipt: try reader.blob("receipt"),
            createdAt: try reader.date("created_at"),
            notBefore: try reader.optionalDate("not_before"),
            expiresAt: try reader.optionalDate("expires_at"),
            riskMetric: try reader.optionalInteger("risk_metric").map { Int($0) },
            storedAt: try reader.date("stored_at"),
            nextRefreshAt: try reader.optionalDate("next_refresh_at"),
            refreshedAt: try reader.optionalDate("refreshed_at"),
            metricStale: try reader.integer("metric_stale") != 0,
            lastOutcome: try reader.optionalText("last_outcome"),
            lastAttemptAt: try reader.optionalDate("last_attempt_at"),
            attempts: Int(try reader.integer("attempts"))
        )
    }
}

extension RiskMetricObservation {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "risk_metric_history")
        self.init(
            appId: try reader.text("app_id"),
            keyId: try reader.blob("key_id"),
            riskMetric: Int(try reader.integer("risk_metric")),
            receiptCreatedAt: try reader.date("receipt_created_at"),
            observedAt: try reader.date("observed_at")
        )
    }
}

extension DeviceCheckRecord {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "devicecheck_bits")
        self.init(
            scope: DeviceCheckScope(rawValue: try reader.text("scope")),
            environment: try reader.enumeration("environment", as: AppAttestEnvironment.self),
            subject: DeviceCheckSubject(
                kind: try reader.enumeration("subject_kind", as: DeviceCheckSubject.Kind.self),
                value: try reader.text("subject")
            ),
            bit0: try reader.optionalInteger("bit0").map { $0 != 0 },
            bit1: try reader.optionalInteger("bit1").map { $0 != 0 },
            found: try reader.integer("found") != 0,
            lastUpdateTime: try reader.optionalText("last_update_time"),
            observedAt: try reader.date("observed_at")
        )
    }
}

extension DeviceCheckValidationRecord {
    init(sqlite row: SQLiteRow) throws {
        let reader = SQLiteRowReader(row: row, table: "devicecheck_validations")
        self.init(
            appId: try reader.text("app_id"), userId: try reader.text("user_id"),
            environment: try reader.enumeration("environment", as: AppAttestEnvironment.self), validatedAt: try reader.date("validated_at")
        )
    }
}
