public import Foundation
public import RiskRules
import Synchronization

/// The sweep as the receipt refresh runs it (``ReceiptRefreshScheduler/sweep``): at the end of `attestguard receipts
/// refresh`, and in `serve`'s continuous refresher once a UTC day, after the day's first pass and its baselines, so
/// that the rules read the risk metrics the refresh just stored.
public struct KeySweepJob: Sendable {
    let sweep: KeySweep
    /// The sweep rule set (`rules.sweepDirectory`), read when the process starts.
    public let ruleSet: RuleSet
    /// Reads what the rules read beside the store's facts (the run-time lists, the day's baselines) before a sweep.
    public let prepare: @Sendable () async throws -> Void
    /// The UTC day of the last sweep that finished, shared by copies of the job.
    private let lastDay = SweptDay()

    public init(sweep: KeySweep, ruleSet: RuleSet, prepare: @escaping @Sendable () async throws -> Void) {
        self.sweep = sweep
        self.ruleSet = ruleSet
        self.prepare = prepare
    }

    /// The job of `engine`'s sweep with `ruleSet`, which first reads the lists and the latest baselines into the
    /// engine, as a server's periodic reads hold them.
    public init(engine: Engine, ruleSet: RuleSet) {
        let (lists, baselines, store) = (engine.lists, engine.baselines, engine.store)
        self.init(sweep: engine.sweep, ruleSet: ruleSet) {
            _ = try await lists.refresh()
            baselines.replace(with: try await store.latestRiskBaselines())
        }
    }

    /// Sweeps every app now.
    @discardableResult
    public func run() async throws -> KeySweepReport {
        try await prepare()
        let report = try await sweep.run(ruleSet, dryRun: false)
        lastDay.value.withLock { $0 = RiskBaselineJob.day(of: report.startedAt) }
        return report
    }

    /// ``run()`` unless this job swept today (UTC) already; for the continuous refresher's loop.
    @discardableResult
    public func runIfDue() async throws -> KeySweepReport? {
        let today = RiskBaselineJob.day(of: sweep.clock.now())
        guard lastDay.value.withLock({ $0 }) != today else { return nil }
        return try await run()
    }
}

private final class SweptDay: Sendable {
    let value = Mutex<String?>(nil)
}
