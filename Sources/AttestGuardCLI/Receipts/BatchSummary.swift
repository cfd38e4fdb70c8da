import AttestGuardEngine
import Foundation
import AttestGuardStore
/// The one JSON line `attestguard receipts refresh` prints when it ends.
struct BatchSummary: Encodable {
    var settled: Int
    var redeemed: Int
    var keptNewer: Int
    var keyInactive: Int
    var notModified: Int
    var noData: Int
    var retries: Int
    var gaveUp: Int
    var failed: Int
    var leaseLost: Int
    var failures: [String: Int]
    var redeemedPerApp: [String: Int]
    /// Receipts of unused keys out of the schedule when the batch ended: the keys it skipped.
    var dormant: Int
    /// Keys this batch took out of the schedule, per app.
    var newlyDormant: [String: Int]
    /// Apps whose risk-metric baseline the batch computed for the day (absent when the job failed).
    var baselines: Int?
    /// The sweep at the batch's end, per app: keys scored, flagged and not scored (absent when no sweep is configured
    /// or it failed; `attestguard receipts sweep --json` prints the whole report).
    var sweep: [String: SweepCounts]?
    var seconds: Double
    var perSecond: Double

    init(report: ReceiptBatchReport, elapsed: Duration) {
        settled = report.settled
        redeemed = report.redeemed
        keptNewer = report.keptNewer
        keyInactive = report.keyInactive
        notModified = report.notModified
        noData = report.noData
        retries = report.retries
        gaveUp = report.gaveUp
        failed = report.failed
        leaseLost = report.leaseLost
        failures = report.failures
        redeemedPerApp = report.redeemedPerApp
        dormant = report.dormant
        newlyDormant = report.newlyDormantPerApp
        baselines = report.baselinesComputed
        sweep = report.sweep.map { sweep in
            Dictionary(uniqueKeysWithValues: sweep.apps.map { ($0.appId, SweepCounts(keys: $0.keys, flagged: $0.flagged, failed: $0.failed)) })
        }
        seconds = (elapsed.timeInterval * 1000).rounded() / 1000
        perSecond = seconds > 0 ? (Double(report.settled) / seconds).rounded() : 0
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}

extension BatchSummary {
    /// One app's sweep in the summary.
    struct SweepCounts: Encodable {
        var keys: Int
        var flagged: Int
        var failed: Int
    }
}
