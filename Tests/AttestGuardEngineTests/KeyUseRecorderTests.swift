import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import Foundation
import Testing

@Suite("Key uses written behind the request path")
struct KeyUseRecorderTests {
    static let now = SimulatorFixtures.now
    static let appId = SimulatorFixtures.app.appId

    @Test("a key's uses within the granularity cost one write; later ones are written again; the queue is bounded")
    func granularityAndBound() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let keys = try await ReceiptFleet.register(count: 3, in: test.store, at: Self.now, placeholderReceipts: true)
            let recorder = KeyUseRecorder(store: test.store, granularity: .seconds(3_600), maximumPending: 2)
            let first = keys[0].keyId
            recorder.note(appId: Self.appId, keyId: first, at: Self.now.addingTimeInterval(60))
            recorder.note(appId: Self.appId, keyId: first, at: Self.now.addingTimeInterval(600))
            #expect(recorder.backlog.pending == 1)
            try await recorder.flush()
            #expect(recorder.backlog.pending == 0)

            // Written ten minutes in: a use within the hour after that is not written again; one past it is.
            recorder.note(appId: Self.appId, keyId: first, at: Self.now.addingTimeInterval(1_200))
            #expect(recorder.backlog.pending == 0)
            recorder.note(appId: Self.appId, keyId: first, at: Self.now.addingTimeInterval(4_300))
            #expect(recorder.backlog.pending == 1)

            recorder.note(appId: Self.appId, keyId: keys[1].keyId, at: Self.now.addingTimeInterval(4_300))
            recorder.note(appId: Self.appId, keyId: keys[2].keyId, at: Self.now.addingTimeInterval(4_300))
            #expect(recorder.backlog.pending == 2)
            #expect(recorder.backlog.dropped == 1)
            try await recorder.flush()

            // What was written is what keeps a key in the schedule: only the dropped key is unused since attestation.
            let leases = try await test.store.leaseDueReceipts(ReceiptLeaseRequest(owner: "seed", now: Self.now, duration: .seconds(60), limit: 10))
            for lease in leases {
                var receipt = lease.receipt
                receipt.createdAt = receipt.createdAt.addingTimeInterval(1)
                receipt.nextRefreshAt = Self.now.addingTimeInterval(86_400)
                _ = try await test.store.replaceReceipt(ReceiptReplacement(receipt: receipt, leaseOwner: "seed", observedAt: Self.now))
            }
            let later = Self.now.addingTimeInterval(2 * 86_400)
            let parking = try await test.store.parkDormantReceipts(unusedSince: Self.now.addingTimeInterval(4_000), at: later, limit: 10)
            #expect(parking.parked == 1)
            let kept = try await test.store.leaseDueReceipts(ReceiptLeaseRequest(owner: "worker", now: later, duration: .seconds(60), limit: 10))
            #expect(Set(kept.map(\.keyId)) == [first, keys[1].keyId])
        }
    }
}
