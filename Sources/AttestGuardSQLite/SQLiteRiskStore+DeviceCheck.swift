public import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func storeDeviceCheckBits(_ record: DeviceCheckRecord) async throws {
        // An older observation never overwrites a newer one; "not found" clears the bits.
        _ = try await query(
            """
            INSERT INTO devicecheck_bits (scope, environment, subject_kind, subject, bit0, bit1, found, last_update_time, observed_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (scope, environment, subject_kind, subject) DO UPDATE SET
                bit0 = CASE WHEN excluded.found THEN coalesce(excluded.bit0, devicecheck_bits.bit0) END,
                bit1 = CASE WHEN excluded.found THEN coalesce(excluded.bit1, devicecheck_bits.bit1) END,
                found = excluded.found,
                last_update_time = CASE WHEN excluded.found THEN coalesce(excluded.last_update_time, devicecheck_bits.last_update_time) END,
                observed_at = excluded.observed_at
            WHERE devicecheck_bits.observed_at <= excluded.observed_at
            """,
            [
                .text(record.scope.rawValue), .text(record.environment.rawValue), .text(record.subject.kind.rawValue), .text(record.subject.value),
                SQLiteValues.bind(record.bit0), SQLiteValues.bind(record.bit1), SQLiteValues.bind(record.found),
                SQLiteValues.bind(record.lastUpdateTime), SQLiteValues.bind(record.observedAt),
            ]
        )
    }

    public func deviceCheckBits(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws -> DeviceCheckRecord? {
        try await query(
            "SELECT * FROM devicecheck_bits WHERE scope = ?1 AND environment = ?2 AND subject_kind = ?3 AND subject = ?4",
            [.text(scope.rawValue), .text(environment.rawValue), .text(subject.kind.rawValue), .text(subject.value)]
        ).first.map(DeviceCheckRecord.init(sqlite:))
    }

    public func markDeviceCheckBit1Pending(
        scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject, ruleId: String, at: Date
    ) async throws {
        _ = try await query(
            """
            INSERT INTO devicecheck_bit1_pending (scope, environment, subject_kind, subject, rule_id, flagged_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (scope, environment, subject_kind, subject) DO NOTHING
            """,
            [.text(scope.rawValue), .text(environment.rawValue), .text(subject.kind.rawValue), .text(subject.value), .text(ruleId), SQLiteValues.bind(at)]
        )
    }

    public func deviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws -> Date? {
        try await query(
            "SELECT flagged_at FROM devicecheck_bit1_pending WHERE scope = ?1 AND environment = ?2 AND subject_kind = ?3 AND subject = ?4",
            [.text(scope.rawValue), .text(environment.rawValue), .text(subject.kind.rawValue), .text(subject.value)]
        ).first.map { try SQLiteRowReader(row: $0, table: "devicecheck_bit1_pending").date("flagged_at") }
    }

    public func clearDeviceCheckBit1Pending(scope: DeviceCheckScope, environment: AppAttestEnvironment, subject: DeviceCheckSubject) async throws {
        _ = try await query(
            "DELETE FROM devicecheck_bit1_pending WHERE scope = ?1 AND environment = ?2 AND subject_kind = ?3 AND subject = ?4",
            [.text(scope.rawValue), .text(environment.rawValue), .text(subject.kind.rawValue), .text(subject.value)]
        )
    }

    public func purgeLegacyDeviceCheckBits(observedBefore cutoff: Date) async throws -> Int {
        try await query(
            "DELETE FROM devicecheck_bits WHERE substr(scope, 1, ?1) = ?2 AND observed_at < ?3 RETURNING 1",
            [.integer(DeviceCheckScope.legacyPrefix.utf8.count), .text(DeviceCheckScope.legacyPrefix), SQLiteValues.bind(cutoff)]
        ).count
    }

    public func recordDeviceCheckValidation(_ record: DeviceCheckValidationRecord) async throws {
        // The latest instant wins; an older one (a slower process) changes nothing.
        _ = try await query(
            """
            INSERT INTO devicecheck_validations (app_id, user_id, environment, validated_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (app_id, user_id) DO UPDATE SET environment = excluded.environment, validated_at = excluded.validated_at
            WHERE devicecheck_validations.validated_at <= excluded.validated_at
            """,
            [.text(record.appId), .text(record.userId), .text(record.environment.rawValue), SQLiteValues.bind(record.validatedAt)]
        )
    }

    public func deviceCheckValidation(appId: String, userId: String) async throws -> DeviceCheckValidationRecord? {
        try await query(
            "SELECT * FROM devicecheck_validations WHERE app_id = ?1 AND user_id = ?2", [.text(appId), .text(userId)]
        ).first.map(DeviceCheckValidationRecord.init(sqlite:))
    }
}
