public import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func storeDeviceCheckBits(_ record: DeviceCheckRecord) async throws {
        // An older observation never overwrites a newer one; "not found" clears the bits.
        _ = try await rows(
            """
            INSERT INTO devicecheck_bits (scope, environment, subject_kind, subject, bit0, bit1, found, last_update_time, observed_at)
            VALUES (\(record.scope.rawValue), \(record.environment.rawValue), \(record.subject.kind.rawValue), \(record.subject.value),
                \(record.bit0), \(record.bit1), \(record.found), \(record.lastUpdateTime), \(record.observedAt))
            ON CONFLICT (scope, environment, subject_kind, subject) DO UPDATE SET
                bit0 = CASE WHEN EXCLUDED.found THEN COALESCE(EXCLUDED.bit0, devicecheck_bits.bit0) END,
                bit1 = CASE WHEN EXCLUDED.found THEN COALESCE(EXCLUDED.bit1, devicecheck_bits.bit1) END,
                found = EXCLUDED.found,
                last_update_time = CASE WHEN EXCLUDED.found THEN COALESCE(EXCLUDED.last_update_time, devicecheck_bits.last_update_time) END,
                observed_at = EXCLUDED.observed_at
            WHERE devicecheck_bits.observed_at <= EXCLUDED.observed_at
            """
        )
    }

    public func deviceCheckBits(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws -> DeviceCheckRecord? {
        try await rows(
            """
            SELECT * FROM devicecheck_bits
            WHERE scope = \(scope.rawValue) AND environment = \(environment.rawValue) AND subject_kind = \(subject.kind.rawValue) AND subject = \(subject.value)
            """
        ).first.map(DeviceCheckRecord.init(postgres:))
    }

    public func markDeviceCheckBit1Pending(
        scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject, ruleId: String, at: Date
    ) async throws {
        _ = try await rows(
            """
            INSERT INTO devicecheck_bit1_pending (scope, environment, subject_kind, subject, rule_id, flagged_at)
            VALUES (\(scope.rawValue), \(environment.rawValue), \(subject.kind.rawValue), \(subject.value), \(ruleId), \(at))
            ON CONFLICT (scope, environment, subject_kind, subject) DO NOTHING
            """
        )
    }

    public func deviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws -> Date? {
        try await rows(
            """
            SELECT flagged_at FROM devicecheck_bit1_pending
            WHERE scope = \(scope.rawValue) AND environment = \(environment.rawValue) AND subject_kind = \(subject.kind.rawValue) AND subject = \(subject.value)
            """
        ).first.map { try PostgresRowReader($0, table: "devicecheck_bit1_pending")("flagged_at", as: Date.self) }
    }

    public func clearDeviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws {
        _ = try await rows(
            """
            DELETE FROM devicecheck_bit1_pending
            WHERE scope = \(scope.rawValue) AND environment = \(environment.rawValue) AND subject_kind = \(subject.kind.rawValue) AND subject = \(subject.value)
            """
        )
    }

    public func purgeLegacyDeviceCheckBits(observedBefore cutoff: Date) async throws -> Int {
        try await rows(
            "DELETE FROM devicecheck_bits WHERE starts_with(scope, \(DeviceCheckScope.legacyPrefix)) AND observed_at < \(cutoff) RETURNING 1"
        ).count
    }

    public func recordDeviceCheckValidation(_ record: DeviceCheckValidationRecord) async throws {
        // The latest instant wins; an older one (a slower process) changes nothing.
        _ = try await rows(
            """
            INSERT INTO devicecheck_validations (app_id, user_id, environment, validated_at)
            VALUES (\(record.appId), \(record.userId), \(record.environment.rawValue), \(record.validatedAt))
            ON CONFLICT (app_id, user_id) DO UPDATE SET environment = EXCLUDED.environment, validated_at = EXCLUDED.validated_at
            WHERE devicecheck_validations.validated_at <= EXCLUDED.validated_at
            """
        )
    }

    public func deviceCheckValidation(appId: String, userId: String) async throws -> DeviceCheckValidationRecord? {
        try await rows(
            "SELECT * FROM devicecheck_validations WHERE app_id = \(appId) AND user_id = \(userId)"
        ).first.map(DeviceCheckValidationRecord.init(postgres:))
    }
}
