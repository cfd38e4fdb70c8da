public import Foundation
public import RiskRules
import Synchronization

/// The sweep as the receipt refresh runs it (``ReceiptRefreshScheduler/sweep``): at the end of `attestguard receipts
/// refresh`, and in `serve`'s continuous refresher once a UTC day per process, beside the refresh (which goes on),
/// started after the day's first pass and its baselines, so that the rules read the risk metrics the refresh just
/// stored. A day's sweep is tried once: one that fails is logged and waits for the next day.
public struct KeySweepJob: Sendable {
    let sweep: KeySweep
    /// The sweep rule set (`rules.sweepDirectory`), read when the process starts.
    public let ruleSet: RuleSet
    /// Reads what the rules read beside the store's facts (the run-time lists, the day's baselines) before a sweep.
    public let prepare: @Sendable () async throws -> Void
    /// The UTC day of the last sweep started, shared by copies of the job.
    private let lastDay = UTCDayMark()

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
        lastDay.value.withLock { $0 = RiskBaselineJob.day(of: sweep.clock.now()) }
        try await prepare()
        return try await sweep.run(ruleSet, dryRun: false)
    }

    /// Whether today's (UTC) sweep is still to start, marking it started when it is: the continuous refresher asks
    /// after each pass and starts the sweep beside it.
    public func startToday() -> Bool {
        let today = RiskBaselineJob.day(of: sweep.clock.now())
        return lastDay.value.withLock { day in
            guard day != today else { return false }
            day = today
            return true
        }
    }

    /// Sweeps every app, as a day's sweep marked by ``startToday()``.
    @discardableResult
    public func runStarted() async throws -> KeySweepReport {
        try await prepare()
        return try await sweep.run(ruleSet, dryRun: false)
    }
}
