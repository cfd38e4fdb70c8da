import AppleReceipts
import DeviceSimulator
import AttestCore
import Crypto
import Foundation
import NIOCore
import PostgresNIO
import AttestGuardStore
import AttestGuardPostgres
import X509

/// `prepare`: writes N keys due now, each with its own P-256 key, credential certificate (issued by the simulated
/// attestation CA) and ATTEST receipt, as exactly the rows `registerKey` writes (a consumed attestation challenge,
/// an active `app_keys` row, a `receipts` row due at the attestation instant), in bulk (`unnest` multi-row
/// INSERTs of 2,000 keys), then copies the receipts to `bench_seed_receipts` so that `run` can restore them.
enum Prepare {
    struct Key: Sendable {
        var keyId: Data
        var publicKey: Data
        var userId: String
        var challengeId: Data
        var receipt: Data
        var attestationSHA256: Data
    }

    static func run(_ options: Options) async throws {
        let count = options.int("keys", 100_000)
        let chunk = 2_000
        let workers = max(1, options.int("workers", ProcessInfo.processInfo.activeProcessorCount))
        let handle = try StoreHandle.open(url: options.databaseURL, connections: 2)
        defer { handle.close() }
        let started = ContinuousClock.now
        try await handle.store.migrate(at: Date())
        try await handle.execute("DROP TABLE IF EXISTS bench_seed_receipts")
        try await handle.execute("TRUNCATE risk_metric_history, receipts, app_keys, challenges")
        _ = Bench.pki
        // Attested two minutes ago, due then: every receipt is due when the run starts.
        let attestedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 120)
        var mintSeconds = 0.0
        var insertSeconds = 0.0
        var receiptBytes = 0
        for base in stride(from: 0, to: count, by: chunk) {
            let range = base..<min(count, base + chunk)
            let mintStarted = ContinuousClock.now
            let keys = try await mint(range, workers: workers, at: attestedAt)
            mintSeconds += (ContinuousClock.now - mintStarted).seconds
            receiptBytes += keys.reduce(0) { $0 + $1.receipt.count }
            let insertStarted = ContinuousClock.now
            try await insert(keys, into: handle, at: attestedAt)
            insertSeconds += (ContinuousClock.now - insertStarted).seconds
        }
        let seedStarted = ContinuousClock.now
        try await handle.execute("CREATE UNLOGGED TABLE bench_seed_receipts AS SELECT * FROM receipts")
        try await handle.execute("VACUUM ANALYZE")
        let seedSeconds = (ContinuousClock.now - seedStarted).seconds
        let rows = try await handle.count("SELECT count(*) FROM receipts WHERE receipt_type = 'ATTEST' AND next_refresh_at <= now()")
        guard rows == count else { Bench.fail("prepared \(rows) due ATTEST receipts, expected \(count)") }
        let total = (ContinuousClock.now - started).seconds
        print("prepared \(count) keys in \(formatted(total, 1)) s: minting \(formatted(mintSeconds, 1)) s (\(workers) workers, "
            + "\(formatted(mintSeconds / Double(count) * 1e6 * Double(workers), 0)) us per key per worker: P-256 key, credential certificate "
            + "signed by the P-384 attestation CA, ATTEST receipt), bulk INSERT \(formatted(insertSeconds, 1)) s, seed copy + VACUUM ANALYZE \(formatted(seedSeconds, 1)) s; "
            + "ATTEST receipts \(receiptBytes / count) bytes on average")
    }

    /// Mints the keys of `range` on `workers` tasks.
    static func mint(_ range: Range<Int>, workers: Int, at attestedAt: Date) async throws -> [Key] {
        try await withThrowingTaskGroup(of: [Key].self) { group in
            let share = (range.count + workers - 1) / workers
            for worker in 0..<workers {
                let slice = min(range.upperBound, range.lowerBound + worker * share)..<min(range.upperBound, range.lowerBound + (worker + 1) * share)
                guard !slice.isEmpty else { continue }
                group.addTask { try slice.map { try key($0, at: attestedAt) } }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    static func key(_ index: Int, at attestedAt: Date) throws -> Key {
        let minted = try AttestedKeyReceipt(pki: Bench.pki, app: Bench.app, environment: .development, at: attestedAt)
        let (keyId, publicKey, receipt) = (minted.keyId, minted.publicKey, minted.receipt)
        return Key(
            keyId: keyId,
            publicKey: publicKey,
            userId: "bench-user-\(index)",
            challengeId: Data(SHA256.hash(data: keyId + Data("challenge".utf8))),
            receipt: receipt,
            attestationSHA256: Data(SHA256.hash(data: receipt))
        )
    }

    /// The rows `PostgresRiskStore.registerKey` writes for these keys (challenge issued then consumed at
    /// registration, active key, ATTEST receipt due at `attestedAt`), in one transaction.
    static func insert(_ keys: [Key], into handle: StoreHandle, at attestedAt: Date) async throws {
        let appIds = Array(repeating: Bench.app.appId, count: keys.count)
        // bytea[] binds: PostgresNIO encodes arrays of ByteBuffer (not of Data).
        let keyIds = keys.map { ByteBuffer(bytes: $0.keyId) }
        let userIds = keys.map(\.userId)
        let challengeIds = keys.map { ByteBuffer(bytes: $0.challengeId) }
        let publicKeys = keys.map { ByteBuffer(bytes: $0.publicKey) }
        let hashes = keys.map { ByteBuffer(bytes: $0.attestationSHA256) }
        let receipts = keys.map { ByteBuffer(bytes: $0.receipt) }
        let expires = attestedAt.addingTimeInterval(300)
        let receiptExpires = attestedAt.addingTimeInterval(90 * 86_400)
        let logger = Bench.quietLogger
        try await handle.store.client().withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            try await connection.query(
                """
                INSERT INTO challenges (id, app_id, purpose, user_id, key_id, api_key_name, issued_at, expires_at,
                    consumed_at, consumed_key_id, consumed_counter, consumed_request)
                SELECT c.id, c.app_id, 'attestation', c.user_id, NULL, NULL, \(attestedAt), \(expires), \(attestedAt), c.key_id, NULL, NULL
                FROM unnest(\(challengeIds)::bytea[], \(appIds)::text[], \(userIds)::text[], \(keyIds)::bytea[]) AS c(id, app_id, user_id, key_id)
                """,
                logger: logger
            )
            try await connection.query(
                """
                INSERT INTO app_keys (app_id, key_id, user_id, device_id, environment, public_key, counter, status,
                    attestation_sha256, os_version, attested_at)
                SELECT k.app_id, k.key_id, k.user_id, NULL, 'development', k.public_key, 0, 'active', k.hash, '17.2.1', \(attestedAt)
                FROM unnest(\(appIds)::text[], \(keyIds)::bytea[], \(userIds)::text[], \(publicKeys)::bytea[], \(hashes)::bytea[])
                    AS k(app_id, key_id, user_id, public_key, hash)
                """,
                logger: logger
            )
            try await connection.query(
                """
                INSERT INTO receipts (app_id, key_id, receipt_type, receipt, created_at, not_before, expires_at, risk_metric, stored_at,
                    next_refresh_at)
                SELECT r.app_id, r.key_id, 'ATTEST', r.receipt, \(attestedAt), NULL, \(receiptExpires), NULL, \(attestedAt), \(attestedAt)
                FROM unnest(\(appIds)::text[], \(keyIds)::bytea[], \(receipts)::bytea[]) AS r(app_id, key_id, receipt)
                """,
                logger: logger
            )
            try await connection.query("COMMIT", logger: logger)
        }
    }
}
