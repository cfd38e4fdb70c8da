public import Foundation

/// A verified receipt from Apple to store in place of the leased one, with its risk-metric history row, in one
/// transaction. The receipt replaces the stored one only if it is newer (by creation time), so a replayed or
/// late commit never goes backwards; the history row is unique on (key, receipt creation time).
public struct ReceiptReplacement: Sendable, Hashable {
    /// The new receipt (type `RECEIPT`), with its ``ReceiptRecord/nextRefreshAt`` already decided.
    public var receipt: ReceiptRecord
    /// The worker that leased it; its lease is released.
    public var leaseOwner: String
    /// When the answer was received.
    public var observedAt: Date

    public init(receipt: ReceiptRecord, leaseOwner: String, observedAt: Date) {
        self.receipt = receipt
        self.leaseOwner = leaseOwner
        self.observedAt = observedAt
    }
}

/// What storing a redeemed receipt did.
public enum ReceiptReplacementOutcome: Sendable, Hashable {
    /// The receipt replaced an older one; `historyRecorded` is false when the history row already existed.
    case replaced(historyRecorded: Bool)
    /// The stored receipt is as new or newer (a replay or a slower worker): nothing replaced.
    case keptNewer(historyRecorded: Bool)
    /// The key is unknown, revoked or superseded: nothing stored.
    case keyInactive
}

/// The end of one redemption attempt that stores no new receipt: 304, 404, a failure to retry, or giving up.
/// It releases the lease and sets when the receipt is next due; a worker whose lease was taken over changes
/// nothing.
public struct ReceiptAttempt: Sendable, Hashable {
    public var appId: String
    public var keyId: Data
    public var leaseOwner: String
    public var at: Date
    /// A stable word for the outcome (`not_modified`, `no_data`, `throttled`, `server_error`, an error code).
    public var outcome: String
    /// When to try again; `nil` stops refreshing this receipt.
    public var nextRefreshAt: Date?
    /// Transient failures so far (0 once the attempt settles: 304, 404, giving up).
    public var attempts: Int
    /// `true` marks the stored metric stale (404), `false` clears the mark, `nil` leaves it.
    public var metricStale: Bool?

    public init(
        appId: String,
        keyId: Data,
        leaseOwner: String,
        at: Date,
        outcome: String,
        nextRefreshAt: Date?,
        attempts: Int,
        metricStale: Bool? = nil
    ) {
        self.appId = appId
        self.keyId = keyId
        self.leaseOwner = leaseOwner
        self.at = at
        self.outcome = outcome
        self.nextRefreshAt = nextRefreshAt
        self.attempts = attempts
        self.metricStale = metricStale
    }
}

/// How much refresh work is outstanding at an instant, for batch completion, queue-depth metrics and progress.
public struct ReceiptBacklog: Sendable, Hashable {
    /// Active keys' receipts due now that nobody holds.
    public var due: Int
    /// Receipts held under an unexpired lease.
    public var leased: Int
    /// Receipts backing off after a transient failure that happened at or after the `since` instant asked about.
    public var retrying: Int
    /// The earliest instant at which leased or retrying work becomes available again.
    public var nextAvailableAt: Date?
    /// Active keys' receipts out of the schedule because their keys went unused (they rejoin at the next use).
    public var dormant: Int

    public init(due: Int, leased: Int, retrying: Int, nextAvailableAt: Date?, dormant: Int = 0) {
        self.due = due
        self.leased = leased
        self.retrying = retrying
        self.nextAvailableAt = nextAvailableAt
        self.dormant = dormant
    }

    /// Nothing due, held or waiting to be retried (dormant receipts wait for their keys, not for the scheduler).
    public var isEmpty: Bool { due == 0 && leased == 0 && retrying == 0 }
}

/// One point of a key's risk-metric history: the metric of one verified receipt.
public struct RiskMetricObservation: Sendable, Hashable {
    public var appId: String
    public var keyId: Data
    public var riskMetric: Int
    /// The receipt's creation time (Apple's field 12); unique per key.
    public var receiptCreatedAt: Date
    public var observedAt: Date

    public init(appId: String, keyId: Data, riskMetric: Int, receiptCreatedAt: Date, observedAt: Date) {
        self.appId = appId
        self.keyId = keyId
        self.riskMetric = riskMetric
        self.receiptCreatedAt = receiptCreatedAt
        self.observedAt = observedAt
    }
}
