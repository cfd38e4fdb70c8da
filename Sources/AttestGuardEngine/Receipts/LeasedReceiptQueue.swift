import Foundation
import AttestGuardStore
/// Hands leased receipts to the workers of one pass, leasing the next batch from the store when the buffer runs
/// dry, until the store has nothing due.
actor LeasedReceiptQueue {
    private let store: any RiskStore
    private let owner: String
    private let settings: ReceiptRefreshSettings
    private let clock: any EngineClock
    private var buffer: [ReceiptLease] = []
    private var refill: Task<[ReceiptLease], any Error>?
    private var exhausted = false

    init(store: any RiskStore, owner: String, settings: ReceiptRefreshSettings, clock: any EngineClock) {
        self.store = store
        self.owner = owner
        self.settings = settings
        self.clock = clock
    }

    /// The next leased receipt, or nil once nothing is due.
    func next() async throws -> ReceiptLease? {
        while buffer.isEmpty {
            if exhausted { return nil }
            // One lease round trip at a time: workers that find the buffer empty wait for the same refill.
            let pending: Task<[ReceiptLease], any Error>
            if let refill {
                pending = refill
            } else {
                let request = ReceiptLeaseRequest(
                    owner: owner,
                    now: clock.now(),
                    duration: settings.leaseDuration,
                    limit: settings.leaseBatchSize
                )
                let store = self.store
                pending = Task { try await store.leaseDueReceipts(request) }
                refill = pending
            }
            let leased = try await pending.value
            if refill == pending {
                refill = nil
                if leased.isEmpty { exhausted = true }
                buffer.append(contentsOf: leased.reversed())
            }
        }
        return buffer.popLast()
    }
}
