public import Foundation
public import RiskRules
import Synchronization
public import AttestGuardStore

/// The sweep as the receipt refresh runs it (``ReceiptRefreshScheduler/sweep``): at the end of `attestguard receipts
/// refresh`, and in `serve`'s continuous refresher once a UTC day for all the processes sharing the store (the one that
/// claims the day, ``KeySweepClaimStore``), beside the refresh (which goes on), started after the day's first pass and
/// its baselines, so that the rules read the risk metrics the refresh just stored. A day's sweep is tried once: one
/// that fails is logged and waits for the next day; one whose process stops or dies before it finishes is taken over
/// by another process once its claim has gone unrenewed for ``staleAfter``.
public struct KeySweepJob: Sendable {
    let sweep: KeySweep
    /// The sweep rule set (`rules.sweepDirectory`), read when the process starts.
    public let ruleSet: RuleSet
    /// Reads what the rules read beside the store's facts (the run-time lists, the day's baselines) before a sweep.
    public let prepare: @Sendable () async throws -> Void
    /// The UTC day of the last sweep this process started, shared by copies of the job.
    private let lastDay = UTCDayMark()

    /// How long a claimed day may go unrenewed before another process takes its sweep over.
    public static let staleAfter: TimeInterval = 600
    /// How often a running sweep renews its claim (between pages, at most this often).
    public static let renewEvery: TimeInterval = 60

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

    /// Sweeps every app now, whoever swept today.
    @discardableResult
    public func run() async throws -> KeySweepReport {
        lastDay.value.withLock { $0 = RiskBaselineJob.day(of: sweep.clock.now()) }
        try await prepare()
        return try await sweep.run(ruleSet, dryRun: false)
    }

    /// Claims today's (UTC) sweep for `owner` unless this process started it already, another process holds it, or
    /// it is finished: the continuous refresher asks after each pass and, given the day, starts ``runClaimed(day:owner:)``
    /// beside it. A day another process holds is asked for again after the next pass, so that it is taken over if that
    /// process stops renewing it.
    public func claimToday(owner: String) async throws -> String? {
        let now = sweep.clock.now()
        let today = RiskBaselineJob.day(of: now)
        guard lastDay.value.withLock({ $0 != today }) else { return nil }
        guard try await sweep.store.claimKeySweepDay(today, owner: owner, at: now, staleBefore: now.addingTimeInterval(-Self.staleAfter)) else {
            return nil
        }
        lastDay.value.withLock { $0 = today }
        return today
    }

    /// Sweeps every app as `day`'s sweep, claimed by ``claimToday(owner:)``, renewing the claim between pages. The day
    /// is finished when the sweep ends, even when it failed (a day's sweep is tried once); a cancelled sweep (the
    /// process stopping) leaves it to another process after ``staleAfter``.
    @discardableResult
    public func runClaimed(day: String, owner: String) async throws -> KeySweepReport {
        let (store, clock) = (sweep.store, sweep.clock)
        let lastRenewal = Mutex(clock.now())
        let renew: @Sendable () async -> Void = {
            let now = clock.now()
            guard lastRenewal.withLock({ now.timeIntervalSince($0) >= Self.renewEvery }) else { return }
            lastRenewal.withLock { $0 = now }
            // A failed renewal is tried again after the next page; the claim holds for staleAfter meanwhile.
            _ = try? await store.renewKeySweepDay(day, owner: owner, at: now)
        }
        do {
            try await prepare()
            let report = try await sweep.run(ruleSet, dryRun: false, betweenPages: renew)
            try? await store.finishKeySweepDay(day, owner: owner, at: clock.now())
            return report
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            try? await store.finishKeySweepDay(day, owner: owner, at: clock.now())
            throw error
        }
    }
}
