import AttestVocabulary
public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func issueChallenge(_ challenge: NewChallenge, quota: ChallengeQuota) async throws -> ChallengeIssueOutcome {
        let windowStart = challenge.issuedAt.addingTimeInterval(-quota.window.timeInterval)
        let window = quota.window.timeInterval
        return try await transaction { connection in
            func count(_ sql: String, _ binds: [SQLiteData]) async throws -> (count: Int64, oldest: Date?) {
                let rows = try await connection.query(sql, binds)
                guard let row = rows.first else { return (0, nil) }
                let reader = SQLiteRowReader(row: row, table: "challenges")
                return (try reader.integer("n"), try reader.optionalDate("oldest"))
            }
            if let userId = challenge.userId {
                let counted = try await count(
                    "SELECT count(*) AS n, min(issued_at) AS oldest FROM challenges WHERE app_id = ?1 AND user_id = ?2 AND issued_at > ?3",
                    [.text(challenge.appId), .text(userId), SQLiteValues.bind(windowStart)]
                )
                if counted.count >= quota.maximumPerUser, let oldest = counted.oldest {
                    return .overQuota(retryAt: oldest.addingTimeInterval(window), limit: .perUser)
                }
            } else {
                if let clientHash = challenge.clientHash {
                    let counted = try await count(
                        """
                        SELECT count(*) AS n, min(issued_at) AS oldest FROM challenges
                        WHERE app_id = ?1 AND user_id IS NULL AND client_hash = ?2 AND issued_at > ?3
                        """,
                        [.text(challenge.appId), .text(clientHash), SQLiteValues.bind(windowStart)]
                    )
                    if counted.count >= quota.maximumUnboundPerClient, let oldest = counted.oldest {
                        return .overQuota(retryAt: oldest.addingTimeInterval(window), limit: .unboundPerClient)
                    }
                }
                // The count stops at the limit, so it reads at most that many index entries.
                let unexpired = try await count(
                    """
                    SELECT count(*) AS n, min(expires_at) AS oldest FROM (
                        SELECT expires_at FROM challenges WHERE app_id = ?1 AND user_id IS NULL AND expires_at > ?2 LIMIT ?3
                    )
                    """,
                    [.text(challenge.appId), SQLiteValues.bind(challenge.issuedAt), .integer(quota.maximumUnboundPerApp)]
                )
                if unexpired.count >= quota.maximumUnboundPerApp, let firstExpiry = unexpired.oldest {
                    return .overQuota(retryAt: firstExpiry, limit: .unboundPerApp)
                }
            }
            _ = try await connection.query(
                """
                INSERT INTO challenges (id, app_id, purpose, user_id, key_id, api_key_name, client_hash, issued_at, expires_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                """,
                [
                    SQLiteValues.bind(challenge.id), .text(challenge.appId), .text(challenge.purpose.rawValue),
                    SQLiteValues.bind(challenge.userId), SQLiteValues.bind(challenge.keyId),
                    SQLiteValues.bind(challenge.apiKeyName), SQLiteValues.bind(challenge.clientHash),
                    SQLiteValues.bind(challenge.issuedAt), SQLiteValues.bind(challenge.expiresAt),
                ]
            )
            return .issued
        }
    }

    public func challenge(id: Data) async throws -> ChallengeRecord? {
        try await query("SELECT * FROM challenges WHERE id = ?1", [SQLiteValues.bind(id)])
            .first.map(ChallengeRecord.init(sqlite:))
    }

    public func key(appId: String, keyId: Data) async throws -> KeyRecord? {
        try await query("SELECT * FROM app_keys WHERE app_id = ?1 AND key_id = ?2", [.text(appId), SQLiteValues.bind(keyId)])
            .first.map(KeyRecord.init(sqlite:))
    }

    public func supersededKeyCount(appId: String, userId: String, deviceId: String) async throws -> Int {
        let rows = try await query(
            "SELECT count(*) AS n FROM app_keys WHERE app_id = ?1 AND user_id = ?2 AND device_id = ?3 AND status = 'superseded'",
            [.text(appId), .text(userId), .text(deviceId)]
        )
        return rows.first?.column("n")?.integer ?? 0
    }

    public func receipt(appId: String, keyId: Data) async throws -> ReceiptRecord? {
        try await query("SELECT * FROM receipts WHERE app_id = ?1 AND key_id = ?2", [.text(appId), SQLiteValues.bind(keyId)])
            .first.map(ReceiptRecord.init(sqlite:))
    }

    public func registerKey(_ registration: KeyRegistration) async throws -> KeyRegistrationOutcome {
        let key = registration.key
        if let existing = try await self.key(appId: key.appId, keyId: key.keyId) {
            return RejectionDiagnosis.existingKey(existing, registration: registration)
        }
        do {
            let superseded = try await transaction { connection in
                try await Self.consume(registration.claim, on: connection)
                let inserted = try await connection.query(
                    """
                    INSERT INTO app_keys (app_id, key_id, user_id, device_id, environment, public_key, counter, status,
                        attestation_sha256, os_version, attested_at, registration_challenge_sha256, registration_challenge_expires_at,
                        validation_category, bundle_version)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, 'active', ?7, ?8, ?9, ?10, (SELECT expires_at FROM challenges WHERE id = ?11), ?12, ?13)
                    ON CONFLICT DO NOTHING RETURNING key_id
                    """,
                    [
                        .text(key.appId), SQLiteValues.bind(key.keyId), .text(key.userId), SQLiteValues.bind(key.deviceId),
                        .text(key.environment.rawValue), SQLiteValues.bind(key.publicKey), SQLiteValues.bind(key.attestationSHA256),
                        SQLiteValues.bind(key.osVersion), SQLiteValues.bind(key.attestedAt),
                        SQLiteValues.bind(ChallengeClaim.digest(of: registration.claim.challengeId)),
                        SQLiteValues.bind(registration.claim.challengeId),
                        key.validationCategory.map { .integer(Int($0.number)) } ?? .null, SQLiteValues.bind(key.bundleVersion),
                    ]
                )
                guard inserted.count == 1 else { throw RollbackSignal(step: .keyExists) }
                var superseded: [Data] = []
                if let deviceId = key.deviceId {
                    let rows = try await connection.query(
                        """
                        UPDATE app_keys SET status = 'superseded', superseded_by = ?4, status_changed_at = ?5
                        WHERE app_id = ?1 AND user_id = ?2 AND device_id = ?3 AND status = 'active' AND key_id <> ?4
                        RETURNING key_id
                        """,
                        [.text(key.appId), .text(key.userId), .text(deviceId), SQLiteValues.bind(key.keyId), SQLiteValues.bind(key.attestedAt)]
                    )
                    superseded = try rows.map { try SQLiteRowReader(row: $0, table: "app_keys").blob("key_id") }
                }
                try await Self.insertReceipt(registration.receipt, on: connection)
                return superseded
            }
            var registered = key
            registered.counter = 0
            registered.status = .active
            return .registered(registered, supersededKeyIds: superseded)
        } catch let signal as RollbackSignal {
            return try await registrationOutcome(rolledBackAt: signal, registration)
        }
    }

    public func revokeKey(appId: String, keyId: Data, at: Date) async throws -> KeyRecord? {
        _ = try await query(
            "UPDATE app_keys SET status = 'revoked', status_changed_at = ?3 WHERE app_id = ?1 AND key_id = ?2 AND status <> 'revoked'",
            [.text(appId), SQLiteValues.bind(keyId), SQLiteValues.bind(at)]
        )
        return try await key(appId: appId, keyId: keyId)
    }

    public func purgeChallenges(expiredBefore cutoff: Date) async throws -> Int {
        try await query("DELETE FROM challenges WHERE expires_at < ?1 RETURNING id", [SQLiteValues.bind(cutoff)]).count
    }

    public func checkHealth() async throws {
        _ = try await query("SELECT 1")
    }

    // MARK: - Statements shared by the transactions

    /// The conditional consumption of a key registration's challenge: exactly one row or a rollback.
    private static func consume(_ claim: ChallengeClaim, on connection: SQLiteConnection) async throws {
        let rows = try await connection.query(
            """
            UPDATE challenges SET consumed_at = ?1, consumed_key_id = ?2
            WHERE id = ?3 AND app_id = ?4 AND purpose = ?5 AND consumed_at IS NULL AND expires_at > ?6
              AND (user_id IS NULL OR user_id = ?7) AND (key_id IS NULL OR key_id = ?2)
            RETURNING id
            """,
            [
                SQLiteValues.bind(claim.at), SQLiteValues.bind(claim.keyId), SQLiteValues.bind(claim.challengeId), .text(claim.appId),
                .text(claim.purpose.rawValue), SQLiteValues.bind(claim.expiryThreshold), .text(claim.userId),
            ]
        )
        guard rows.count == 1 else { throw RollbackSignal(step: .challenge) }
    }

    private static func insertReceipt(_ receipt: ReceiptRecord, on connection: SQLiteConnection) async throws {
        _ = try await connection.query(
            """
            INSERT INTO receipts (app_id, key_id, receipt_type, receipt, created_at, not_before, expires_at, risk_metric, stored_at,
                next_refresh_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            """,
            [
                .text(receipt.appId), SQLiteValues.bind(receipt.keyId), .text(receipt.receiptType.rawValue),
                SQLiteValues.bind(receipt.receipt), SQLiteValues.bind(receipt.createdAt), SQLiteValues.bind(receipt.notBefore),
                SQLiteValues.bind(receipt.expiresAt), SQLiteValues.bind(receipt.riskMetric.map { Int64($0) }),
                SQLiteValues.bind(receipt.storedAt), SQLiteValues.bind(receipt.nextRefreshAt),
            ]
        )
    }
}
