import AttestGuardStore
/// What one redemption attempt of one leased receipt came to.
public enum ReceiptRefreshResult: Sendable, Hashable {
    /// A verified newer receipt is stored, with its risk metric in the history.
    case redeemed(riskMetric: Int?)
    /// Apple's receipt verified but the store already holds one as new (a replay or a slower worker).
    case keptNewer
    /// The key was revoked or superseded meanwhile: nothing stored.
    case keyInactive
    /// 304: asked before not-before; the old receipt stays, due again after not-before.
    case notModified
    /// 404: Apple has no data; the last receipt stays and its metric is marked stale.
    case noData
    /// A transient failure (the word names it); the receipt is retried after a back-off.
    case retrying(String)
    /// Transient failures reached the maximum; the receipt waits for its next regular refresh.
    case gaveUp(String)
    /// Apple refused the request for a reason retrying will not fix (401, 400).
    case failed(String)
    /// Another worker took the receipt over (this worker's lease expired): nothing settled here.
    case leaseLost

    /// The `outcome` label of `attestguard_receipt_redemptions_total`.
    public var outcome: String {
        switch self {
        case .redeemed: "redeemed"
        case .keptNewer: "kept_newer"
        case .keyInactive: "key_inactive"
        case .notModified: "not_modified"
        case .noData: "no_data"
        case .retrying(let word), .gaveUp(let word), .failed(let word): word
        case .leaseLost: "lease_lost"
        }
    }

    /// Whether the receipt is done with for this round (anything but a retry).
    public var isSettled: Bool {
        if case .retrying = self { return false }
        return true
    }
}

/// The tally of a batch: how each receipt's round ended.
public struct ReceiptBatchReport: Sendable, Hashable {
    public var redeemed = 0
    public var keptNewer = 0
    public var keyInactive = 0
    public var notModified = 0
    public var noData = 0
    /// Transient failures that were retried (one receipt may count several times).
    public var retries = 0
    public var gaveUp = 0
    public var failed = 0
    public var leaseLost = 0
    /// Outcome words of the receipts that gave up or failed, with counts.
    public var failures: [String: Int] = [:]
    /// Receipts redeemed, per app.
    public var redeemedPerApp: [String: Int] = [:]
    /// Keys whose receipts this batch took out of the schedule as unused, per app.
    public var newlyDormantPerApp: [String: Int] = [:]
    /// Receipts out of the schedule as dormant when the batch ended: the keys it skipped.
    public var dormant = 0
    /// Apps whose risk-metric baseline for the day the batch computed at its end (``RiskBaselineJob``); nil when no
    /// job ran or it failed.
    public var baselinesComputed: Int?
    /// What the sweep (``KeySweepJob``) at the batch's end found; nil when none is configured or it failed.
    public var sweep: KeySweepReport?

    public init() {}

    /// Receipts whose round ended (everything but retries).
    public var settled: Int { redeemed + keptNewer + keyInactive + notModified + noData + gaveUp + failed + leaseLost }

    /// True when no receipt gave up or failed.
    public var isClean: Bool { gaveUp == 0 && failed == 0 }

    /// Keys whose receipts this batch took out of the schedule as unused.
    public var newlyDormant: Int { newlyDormantPerApp.values.reduce(0, +) }

    mutating func record(_ parking: DormantParking) {
        newlyDormantPerApp.merge(parking.parkedPerApp, uniquingKeysWith: +)
    }

    mutating func record(_ result: ReceiptRefreshResult, appId: String) {
        switch result {
        case .redeemed: redeemed += 1; redeemedPerApp[appId, default: 0] += 1
        case .keptNewer: keptNewer += 1
        case .keyInactive: keyInactive += 1
        case .notModified: notModified += 1
        case .noData: noData += 1
        case .retrying: retries += 1
        case .gaveUp(let word): gaveUp += 1; failures[word, default: 0] += 1
        case .failed(let word): failed += 1; failures[word, default: 0] += 1
        case .leaseLost: leaseLost += 1
        }
    }
}
