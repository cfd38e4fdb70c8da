public import Foundation

/// The receipt refresh queue: leases on due receipts, the replacement of a receipt by a verified newer one with
/// its risk-metric history, and the settling of attempts that store nothing.
///
/// Work is leased, not locked: PostgreSQL takes rows with `FOR UPDATE SKIP LOCKED` so that several processes
/// share one batch, and a lease expires, so a crashed worker's receipts return to the pool. Every settling
/// statement is conditional, so a commit replayed after a crash, or made by a worker whose lease was taken
/// over, never moves a receipt backwards nor writes a history row twice.
public protocol ReceiptScheduleStore: Sendable {
    /// Leases up to `request.limit` due receipts of active keys to `request.owner`.
    func leaseDueReceipts(_ request: ReceiptLeaseRequest) async throws -> [ReceiptLease]

    /// Stores a verified receipt in place of an older one and records its metric in the history, in one
    /// transaction, and releases the owner's lease.
    func replaceReceipt(_ replacement: ReceiptReplacement) async throws -> ReceiptReplacementOutcome

    /// Settles an attempt that stores no receipt; returns false when `attempt.leaseOwner` no longer holds it.
    @discardableResult
    func recordReceiptAttempt(_ attempt: ReceiptAttempt) async throws -> Bool

    /// The outstanding work at `now`; `retrying` counts transient failures at or after `retryingSince`.
    func receiptBacklog(at now: Date, retryingSince: Date) async throws -> ReceiptBacklog

    /// A key's risk metrics, oldest receipt first.
    func riskMetricHistory(appId: String, keyId: Data) async throws -> [RiskMetricObservation]

    /// Records that verdicts named these keys: each key's last use moves forward, never back, and a receipt taken
    /// out of the schedule as dormant rejoins it, due at once (the next pass redeems it; nothing is redeemed here).
    /// - Returns: How many receipts rejoined the schedule.
    @discardableResult
    func recordKeyUse(_ uses: [KeyUse]) async throws -> Int

    /// Takes up to `limit` due, unleased receipts of active keys whose last use (attestation, assertion or
    /// ``recordKeyUse(_:)``) is before `cutoff` out of the refresh schedule. A receipt not yet redeemed since its
    /// key's attestation is never taken out: the first redemption shows a device farm. A key used meanwhile keeps
    /// its receipt, however the two statements interleave.
    func parkDormantReceipts(unusedSince cutoff: Date, at now: Date, limit: Int) async throws -> DormantParking

    /// Returns to the schedule every dormant receipt whose key was used at or after `cutoff` (all of them for
    /// `Date.distantPast`): after the dormancy bound grew or was switched off.
    /// - Returns: How many receipts rejoined.
    @discardableResult
    func rejoinDormantReceipts(usedSince cutoff: Date) async throws -> Int
}
