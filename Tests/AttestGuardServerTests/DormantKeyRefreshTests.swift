import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import FakeApple
import Foundation
import Testing

@Suite("Receipt refresh only for keys in use")
struct DormantKeyRefreshTests {
    static let day: TimeInterval = 86_400
    static let attestedAt = SimulatorFixtures.now

    /// 1,000 keys on every backend, a tenth of them in use: what the test proves (only keys in use are redeemed,
    /// dormant ones come back on use) holds at any count, and 10,000 on PostgreSQL cost the suite minutes. The
    /// receipt batch's scale is `Benchmarks/receipts.sh`'s.
    static func fleetSize(_ backend: ServerBackend) -> Int { 1_000 }

    @Test("the fake Apple redeems only the keys in use; a dormant key that asserts again is redeemed in the next batch", arguments: ServerBackend.available)
    func onlyKeysInUseAreRedeemed(backend: ServerBackend) async throws {
        let clock = ManualClock(Self.attestedAt)
        try await ServerHarness.run(backend, clock: clock) { api in
            let engine = try #require(api.engine)
            let store = engine.store
            let total = Self.fleetSize(backend)
            var returning = SimulatedApps.make(user: "returning-user", device: "returning-device")
            #expect(try await api.attest(returning).status == 201)
            // The keys that stay in use carry receipts the fake redeems; the dormant ones, receipts it would refuse.
            let inUse = try await ReceiptFleet.register(count: total / 10, in: store, at: Self.attestedAt, userPrefix: "in-use")
            let dormant = try await ReceiptFleet.register(
                count: total - total / 10 - 1, in: store, at: Self.attestedAt, userPrefix: "dormant", placeholderReceipts: true
            )
            try await Self.seedFirstRedemptions(in: store, count: total, at: RefreshHarness.batchAt)

            try await RefreshHarness.withScheduler(store: store, clock: clock) { fake, scheduler in
                // Twenty days on, the gateway scores requests of a tenth of the keys; the rest go unused.
                clock.set(Self.attestedAt.addingTimeInterval(20 * Self.day))
                for member in inUse {
                    let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": member.keyId.base64EncodedString(), "userId": member.userId])
                    try #require(reply.status == 200, "score: \(reply.text)")
                }
                try await engine.scorer.keyUse.flush()

                // Thirty-one days after attestation every receipt is due; only those of keys in use are redeemed.
                clock.set(Self.attestedAt.addingTimeInterval(31 * Self.day))
                let beforeSecond = fake.state.stats
                let second = try await scheduler.runBatch()
                let afterSecond = fake.state.stats
                #expect(second.redeemed == inUse.count)
                #expect(second.redeemedPerApp == [ServerHarness.appId: inUse.count])
                #expect(second.newlyDormant == dormant.count + 1)
                #expect(second.dormant == dormant.count + 1)
                #expect(afterSecond.redemptionRequests - beforeSecond.redemptionRequests == inUse.count)
                #expect(inUse.allSatisfy { afterSecond.tokens[$0.token]?.redeemed == 1 })

                // An hour later the returning device asserts: the next batch redeems its receipt.
                clock.advance(by: 3_600)
                #expect(try await api.assert(&returning).status == 200)
                try await engine.scorer.keyUse.flush()
                let third = try await scheduler.runBatch()
                #expect(third.redeemed == 1)
                #expect(third.dormant == dormant.count)
                #expect(fake.state.stats.redemptionRequests - afterSecond.redemptionRequests == 1)
                let receipt = try await store.receipt(appId: ServerHarness.appId, keyId: Data(returning.key.keyId))
                #expect(receipt?.refreshedAt == clock.now())

                // A month later every key is unused; then the gateway scores one again: it rejoins once the use is
                // written behind the request path (the server's write-behind service or this flush, whichever first).
                clock.set(Self.attestedAt.addingTimeInterval(62 * Self.day))
                let parked = try await scheduler.runBatch()
                #expect(parked.redeemed == 0)
                #expect(parked.newlyDormant == inUse.count + 1)
                let scored = try #require(inUse.first)
                let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": scored.keyId.base64EncodedString(), "userId": scored.userId])
                try #require(reply.status == 200, "score: \(reply.text)")
                try await engine.scorer.keyUse.flush()
                let fourth = try await scheduler.runBatch()
                #expect(fourth.redeemed == 1)
                #expect(fake.state.stats.tokens[scored.token]?.redeemed == 2)
                #expect(fourth.dormant == total - 1)

                // A use noted but not yet written brings nothing back: the receipt rejoins when the use is written. (A
                // recorder of its own: the server's write-behind service flushes the engine's every second.)
                let noted = inUse[1]
                let recorder = KeyUseRecorder(store: store)
                recorder.note(appId: ServerHarness.appId, keyId: noted.keyId, at: clock.now())
                #expect(try await scheduler.runBatch().redeemed == 0)
                try await recorder.flush()
                let fifth = try await scheduler.runBatch()
                #expect(fifth.redeemed == 1)
                #expect(fake.state.stats.tokens[noted.token]?.redeemed == 2)
                #expect(fifth.dormant == total - 2)
            }
        }
    }

    /// Settles every key's first redemption as a batch would, without the fake's signing and verifying 10,000
    /// receipts: the receipt stays the ATTEST one (which the fake redeems later), marked redeemed and due in 20 hours.
    /// (The store test of dormancy covers that a first redemption always happens.)
    static func seedFirstRedemptions(in store: any RiskStore, count: Int, at now: Date) async throws {
        let leases = try await store.leaseDueReceipts(ReceiptLeaseRequest(owner: "seed", now: now, duration: .seconds(600), limit: count))
        try #require(leases.count == count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for share in 0..<8 {
                group.addTask {
                    for lease in leases[share...].striding(by: 8) {
                        var receipt = lease.receipt
                        receipt.createdAt = receipt.createdAt.addingTimeInterval(1)
                        receipt.nextRefreshAt = now.addingTimeInterval(20 * 3_600)
                        let replacement = ReceiptReplacement(receipt: receipt, leaseOwner: "seed", observedAt: now)
                        guard case .replaced = try await store.replaceReceipt(replacement) else { throw SeedFailed() }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    struct SeedFailed: Error {}
}

extension ArraySlice {
    /// Every `step`th element from the first.
    fileprivate func striding(by step: Int) -> [Element] {
        stride(from: startIndex, to: endIndex, by: step).map { self[$0] }
    }
}
