import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

@Suite("Receipt refresh queue in the store")
struct ReceiptScheduleStoreTests {
    static let lease: Duration = .seconds(60)

    /// Registers a key whose ATTEST receipt is due at `dueAt`.
    static func registerDue(_ store: any RiskStore, dueAt: Date = StoreFixtures.now, environment: AppAttestEnvironment = .development) async throws -> KeyRecord {
        var key = StoreFixtures.key(deviceId: nil)
        key.environment = environment
        let challenge = StoreFixtures.challenge(purpose: .attestation, userId: key.userId)
        _ = try await store.issueChallenge(challenge, quota: StoreFixtures.quota)
        var receipt = StoreFixtures.receipt(for: key)
        receipt.nextRefreshAt = dueAt
        receipt.notBefore = nil
        let outcome = try await store.registerKey(KeyRegistration(claim: StoreFixtures.claim(challenge, key: key), key: key, receipt: receipt))
        guard case .registered(let registered, _) = outcome else { throw StoreFixtures.RegistrationFailed(outcome: outcome) }
        return registered
    }

    static func request(_ owner: String, at now: Date = StoreFixtures.now, limit: Int = 100, environments: Set<AppAttestEnvironment>? = nil) -> ReceiptLeaseRequest {
        ReceiptLeaseRequest(owner: owner, now: now, duration: lease, limit: limit, environments: environments)
    }

    /// A RECEIPT for `key` created `offset` seconds after the fixtures' now.
    static func refreshed(_ key: KeyRecord, metric: Int, createdOffset offset: TimeInterval) -> ReceiptRecord {
        let created = StoreFixtures.now.addingTimeInterval(offset)
        return ReceiptRecord(
            appId: key.appId,
            keyId: key.keyId,
            receiptType: .receipt,
            receipt: Data("refreshed-\(offset)".utf8),
            createdAt: created,
            notBefore: created.addingTimeInterval(86_400),
            expiresAt: created.addingTimeInterval(90 * 86_400),
            riskMetric: metric,
            storedAt: created,
            nextRefreshAt: created.addingTimeInterval(86_400)
        )
    }

    @Test("leases only due receipts of active keys, each to one owner until the lease expires", arguments: StoreBackend.available)
    func leaseSelection(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let due = try await Self.registerDue(store)
            _ = try await Self.registerDue(store, dueAt: StoreFixtures.now.addingTimeInterval(3_600))
            let revoked = try await Self.registerDue(store)
            _ = try await store.revokeKey(appId: revoked.appId, keyId: revoked.keyId, at: StoreFixtures.now)
            let production = try await Self.registerDue(store, environment: .production)

            let first = try await store.leaseDueReceipts(Self.request("worker-a", environments: [.development]))
            #expect(first.map(\.keyId) == [due.keyId])
            #expect(first.first?.environment == .development)
            #expect(first.first?.publicKey == due.publicKey)
            #expect(first.first?.receipt.receipt == StoreFixtures.receipt(for: due).receipt)

            let second = try await store.leaseDueReceipts(Self.request("worker-b"))
            #expect(second.map(\.keyId) == [production.keyId])
            #expect(try await store.leaseDueReceipts(Self.request("worker-c")).isEmpty)

            let afterExpiry = StoreFixtures.now.addingTimeInterval(61)
            let takenOver = try await store.leaseDueReceipts(Self.request("worker-c", at: afterExpiry))
            #expect(Set(takenOver.map(\.keyId)) == [due.keyId, production.keyId])
            #expect(takenOver.allSatisfy { $0.owner == "worker-c" })
        }
    }

    @Test("a newer receipt replaces the stored one with one history row; replays and older receipts change nothing", arguments: StoreBackend.available)
    func replacement(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let key = try await Self.registerDue(store)
            _ = try await store.leaseDueReceipts(Self.request("worker-a"))
            let new = Self.refreshed(key, metric: 4, createdOffset: 10)
            let observed = StoreFixtures.now.addingTimeInterval(11)
            let replacement = ReceiptReplacement(receipt: new, leaseOwner: "worker-a", observedAt: observed)

            #expect(try await store.replaceReceipt(replacement) == .replaced(historyRecorded: true))
            let stored = try #require(try await store.receipt(appId: key.appId, keyId: key.keyId))
            #expect(stored.receipt == new.receipt)
            #expect(stored.riskMetric == 4)
            #expect(stored.receiptType == .receipt)
            #expect(stored.nextRefreshAt == new.nextRefreshAt)
            #expect(stored.refreshedAt == observed)
            #expect(stored.lastOutcome == "redeemed")
            #expect(try await store.leaseDueReceipts(Self.request("worker-b", at: observed)).isEmpty)

            // The same commit again (a crash after Apple answered, before the worker knew it committed).
            #expect(try await store.replaceReceipt(replacement) == .keptNewer(historyRecorded: false))
            // An older receipt from a slower worker.
            let older = ReceiptReplacement(receipt: Self.refreshed(key, metric: 9, createdOffset: 5), leaseOwner: "worker-b", observedAt: observed)
            #expect(try await store.replaceReceipt(older) == .keptNewer(historyRecorded: true))
            #expect(try await store.receipt(appId: key.appId, keyId: key.keyId)?.riskMetric == 4)

            let history = try await store.riskMetricHistory(appId: key.appId, keyId: key.keyId)
            #expect(history.map(\.riskMetric) == [9, 4])
            #expect(history.map(\.receiptCreatedAt) == [StoreFixtures.now.addingTimeInterval(5), StoreFixtures.now.addingTimeInterval(10)])
        }
    }

    @Test("a receipt older than the stored one is recorded in the history, not stored, and its lease comes back", arguments: StoreBackend.available)
    func olderReceiptReleasesLease(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let key = try await Self.registerDue(store)
            #expect(try await store.leaseDueReceipts(Self.request("worker-a")).count == 1)
            let older = ReceiptReplacement(receipt: Self.refreshed(key, metric: 3, createdOffset: -60), leaseOwner: "worker-a", observedAt: StoreFixtures.now)
            #expect(try await store.replaceReceipt(older) == .keptNewer(historyRecorded: true))
            #expect(try await store.receipt(appId: key.appId, keyId: key.keyId)?.receiptType == .attest)
            // Still due, and no longer leased: another worker takes it before worker-a's lease would have expired.
            #expect(try await store.leaseDueReceipts(Self.request("worker-b")).map(\.receipt.keyId) == [key.keyId])
        }
    }

    @Test("a revoked key's receipt is neither replaced nor recorded", arguments: StoreBackend.available)
    func revokedKeyIsNotRefreshed(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let key = try await Self.registerDue(store)
            _ = try await store.leaseDueReceipts(Self.request("worker-a"))
            _ = try await store.revokeKey(appId: key.appId, keyId: key.keyId, at: StoreFixtures.now)
            let replacement = ReceiptReplacement(receipt: Self.refreshed(key, metric: 2, createdOffset: 10), leaseOwner: "worker-a", observedAt: StoreFixtures.now)
            #expect(try await store.replaceReceipt(replacement) == .keyInactive)
            #expect(try await store.receipt(appId: key.appId, keyId: key.keyId)?.receiptType == .attest)
            #expect(try await store.riskMetricHistory(appId: key.appId, keyId: key.keyId).isEmpty)
        }
    }

    @Test("an attempt settles only under its own lease and reschedules the receipt", arguments: StoreBackend.available)
    func attempts(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let key = try await Self.registerDue(store)
            _ = try await store.leaseDueReceipts(Self.request("worker-a"))
            let retryAt = StoreFixtures.now.addingTimeInterval(30)
            func attempt(_ owner: String, stale: Bool?) -> ReceiptAttempt {
                ReceiptAttempt(appId: key.appId, keyId: key.keyId, leaseOwner: owner, at: StoreFixtures.now, outcome: "no_data",
                               nextRefreshAt: retryAt, attempts: 2, metricStale: stale)
            }
            #expect(try await store.recordReceiptAttempt(attempt("worker-b", stale: true)) == false)
            #expect(try await store.recordReceiptAttempt(attempt("worker-a", stale: true)) == true)
            #expect(try await store.recordReceiptAttempt(attempt("worker-a", stale: nil)) == false)

            let stored = try #require(try await store.receipt(appId: key.appId, keyId: key.keyId))
            #expect(stored.nextRefreshAt == retryAt)
            #expect(stored.attempts == 2)
            #expect(stored.metricStale)
            #expect(stored.lastOutcome == "no_data")
            #expect(try await store.leaseDueReceipts(Self.request("worker-b")).isEmpty)
            #expect(try await store.leaseDueReceipts(Self.request("worker-b", at: retryAt)).count == 1)
        }
    }

    @Test("the backlog counts due, leased and retrying receipts and when work comes back", arguments: StoreBackend.available)
    func backlog(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let now = StoreFixtures.now
            #expect(try await store.receiptBacklog(at: now, retryingSince: now).isEmpty)
            let retried = try await Self.registerDue(store)
            for _ in 0..<3 { _ = try await Self.registerDue(store) }
            _ = try await Self.registerDue(store, dueAt: now.addingTimeInterval(7_200))

            let leased = try await store.leaseDueReceipts(Self.request("worker-a", limit: 2))
            #expect(leased.count == 2)
            let settled = leased.first { $0.keyId == retried.keyId } ?? leased[0]
            try await store.recordReceiptAttempt(
                ReceiptAttempt(appId: settled.appId, keyId: settled.keyId, leaseOwner: "worker-a", at: now, outcome: "server_error",
                               nextRefreshAt: now.addingTimeInterval(20), attempts: 1)
            )
            let backlog = try await store.receiptBacklog(at: now, retryingSince: now)
            #expect(backlog == ReceiptBacklog(due: 2, leased: 1, retrying: 1, nextAvailableAt: now.addingTimeInterval(20)))
            let laterBatch = try await store.receiptBacklog(at: now, retryingSince: now.addingTimeInterval(1))
            #expect(laterBatch.retrying == 0)
        }
    }

    @Test("8 workers leasing 400 receipts concurrently never share one", arguments: StoreBackend.available)
    func concurrentLeasesAreDisjoint(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 8) { (test: TestStore) async throws in
            let store = test.store
            var keys: Set<Data> = []
            for _ in 0..<400 { keys.insert(try await Self.registerDue(store).keyId) }
            let leased = try await withThrowingTaskGroup(of: [Data].self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var mine: [Data] = []
                        while true {
                            let batch = try await store.leaseDueReceipts(Self.request("worker-\(worker)", limit: 7))
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.keyId)
                        }
                    }
                }
                return try await group.reduce(into: [[Data]]()) { $0.append($1) }
            }
            let all = leased.flatMap { $0 }
            #expect(all.count == 400)
            #expect(Set(all) == keys)
            if backend != .sqlite {
                #expect(leased.filter { !$0.isEmpty }.count > 1)
            }
        }
    }
}
