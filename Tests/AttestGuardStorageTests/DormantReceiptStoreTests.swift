import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

@Suite("Receipts of unused keys out of the refresh schedule")
struct DormantReceiptStoreTests {
    typealias Schedule = ReceiptScheduleStoreTests
    static let day: TimeInterval = 86_400
    /// Forty days after the fixtures' keys were attested: every refreshed receipt is due again.
    static let later = StoreFixtures.now.addingTimeInterval(40 * day)
    /// Keys unused since ten days before `later` are dormant.
    static let cutoff = later.addingTimeInterval(-10 * day)

    /// Registers a key and stores a redeemed receipt for it, due again at `dueAt`.
    static func registerRefreshed(_ store: any RiskStore, dueAt: Date = later) async throws -> KeyRecord {
        let key = try await Schedule.registerDue(store)
        let leased = try await store.leaseDueReceipts(Schedule.request("setup"))
        #expect(leased.contains { $0.keyId == key.keyId })
        var receipt = Schedule.refreshed(key, metric: 1, createdOffset: 10)
        receipt.nextRefreshAt = dueAt
        #expect(try await store.replaceReceipt(ReceiptReplacement(receipt: receipt, leaseOwner: "setup", observedAt: receipt.createdAt)) == .replaced(historyRecorded: true))
        return key
    }

    @Test("unused keys leave the schedule; used keys and first redemptions stay; a use brings a receipt back", arguments: StoreBackend.available)
    func parkingAndRejoining(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let unused = try await Self.registerRefreshed(store)
            let used = try await Self.registerRefreshed(store)
            let notDue = try await Self.registerRefreshed(store, dueAt: Self.later.addingTimeInterval(Self.day))
            let firstRedemption = try await Schedule.registerDue(store)
            #expect(try await store.recordKeyUse([KeyUse(appId: used.appId, keyId: used.keyId, at: Self.cutoff.addingTimeInterval(60))]) == 0)

            let parking = try await store.parkDormantReceipts(unusedSince: Self.cutoff, at: Self.later, limit: 100)
            #expect(parking.parkedPerApp == [unused.appId: 1])
            // The day's baseline leaves the dormant key's old metric out: the used and the not-yet-due keys count.
            guard case .computed(let baseline) = try await store.computeRiskBaseline(appId: unused.appId, day: "2026-12-31", at: Self.later, by: "w") else {
                Issue.record("computed")
                return
            }
            #expect(baseline.keyCount == 2, "\(baseline)")
            #expect(try await store.parkDormantReceipts(unusedSince: Self.cutoff, at: Self.later, limit: 100).parked == 0)

            let backlog = try await store.receiptBacklog(at: Self.later, retryingSince: Self.later)
            #expect(backlog.dormant == 1)
            #expect(backlog.due == 2)
            let leased = try await store.leaseDueReceipts(Schedule.request("worker", at: Self.later))
            #expect(Set(leased.map(\.keyId)) == [used.keyId, firstRedemption.keyId])
            #expect(!leased.contains { $0.keyId == notDue.keyId || $0.keyId == unused.keyId })

            // The next use, written behind the request path, makes the receipt due at once.
            let use = KeyUse(appId: unused.appId, keyId: unused.keyId, at: Self.later.addingTimeInterval(20))
            #expect(try await store.recordKeyUse([use, use]) == 1)
            #expect(try await store.recordKeyUse([use]) == 0)
            let back = try await store.leaseDueReceipts(Schedule.request("worker", at: Self.later.addingTimeInterval(30)))
            #expect(back.map(\.keyId) == [unused.keyId])
            #expect(try await store.receiptBacklog(at: Self.later, retryingSince: Self.later).dormant == 0)
        }
    }

    @Test("a key's last use never moves back, and a parking limit is honoured", arguments: StoreBackend.available)
    func lastUseOnlyMovesForward(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let recent = try await Self.registerRefreshed(store)
            var idle: [KeyRecord] = []
            for _ in 0..<3 { idle.append(try await Self.registerRefreshed(store)) }
            let recentUse = KeyUse(appId: recent.appId, keyId: recent.keyId, at: Self.later)
            let olderUse = KeyUse(appId: recent.appId, keyId: recent.keyId, at: StoreFixtures.now.addingTimeInterval(Self.day))
            _ = try await store.recordKeyUse([recentUse])
            _ = try await store.recordKeyUse([olderUse])

            #expect(try await store.parkDormantReceipts(unusedSince: Self.cutoff, at: Self.later, limit: 2).parked == 2)
            #expect(try await store.parkDormantReceipts(unusedSince: Self.cutoff, at: Self.later, limit: 2).parked == 1)
            #expect(try await store.parkDormantReceipts(unusedSince: Self.cutoff, at: Self.later, limit: 2).parked == 0)
            #expect(try await store.receiptBacklog(at: Self.later, retryingSince: Self.later).dormant == 3)
            let leased = try await store.leaseDueReceipts(Schedule.request("worker", at: Self.later))
            #expect(leased.map(\.keyId) == [recent.keyId])
        }
    }

    @Test("a longer bound, or none, brings back the receipts of keys used within it", arguments: StoreBackend.available)
    func rejoiningAfterTheBoundGrows(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let usedTwentyDaysAgo = try await Self.registerRefreshed(store)
            let neverUsed = try await Self.registerRefreshed(store)
            _ = try await store.recordKeyUse([KeyUse(appId: usedTwentyDaysAgo.appId, keyId: usedTwentyDaysAgo.keyId, at: Self.later.addingTimeInterval(-20 * Self.day))])
            #expect(try await store.parkDormantReceipts(unusedSince: Self.cutoff, at: Self.later, limit: 100).parked == 2)

            // Thirty days instead of ten: the key used twenty days ago is in use again; the other stays out.
            #expect(try await store.rejoinDormantReceipts(usedSince: Self.later.addingTimeInterval(-30 * Self.day)) == 1)
            let leased = try await store.leaseDueReceipts(Schedule.request("worker", at: Self.later))
            #expect(leased.map(\.keyId) == [usedTwentyDaysAgo.keyId])
            // No bound: everything comes back.
            #expect(try await store.rejoinDormantReceipts(usedSince: .distantPast) == 1)
            let rest = try await store.leaseDueReceipts(Schedule.request("worker-2", at: Self.later))
            #expect(rest.map(\.keyId) == [neverUsed.keyId])
        }
    }
}
