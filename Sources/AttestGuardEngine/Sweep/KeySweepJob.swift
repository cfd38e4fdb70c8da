public import Foundation
public import RiskRules
import Synchronization
public import AttestGuardStore

/// The sweep as the receipt refresh runs it (``ReceiptRefreshScheduler/sweep``): at the end of `attestguard receipts
/// refresh`, and in `serve`'s continuous refresher once a UTC day for all the processes sharing the store (the one that
/// claims the day, ``KeySweepClaimStore``), beside the refresh (which goes on), started after the day's first pass and
/// its baselines, so that the rules read the risk metrics the refresh just stored. A day's sweep is tried once per
/// process: one that fails gives the claim up for another process to try, and is logged; one whose process stops or
/// dies before it finishes is taken over by another process once its claim has gone unrenewed for ``staleAfter``.
public struct KeySweepJob: Sendable {
    let sweep: KeySweep
    /// The sweep rule set (`rules.sweepDirectory`), read when the process starts.
    public let ruleSet: RuleSet
    /// Reads what the rules read beside the store's facts (the run-time lists, the day's baselines) before a sweep.
    public let prepare: @Sendable () async throws -> Void
    /// This process's view of the days, shared by copies of the job.
    private let days = Days()

    /// How long a claimed day may go unrenewed before another process takes its sweep over.
    public static let staleAfter: TimeInterval = 900
    /// How often a running sweep renews its claim (between pages, at most this often).
    public static let renewEvery: TimeInterval = 60
    /// How long a process waits before asking again for a day another process holds.
    public static let askAgainAfter: TimeInterval = 300

    /// What this process knows of the days: the last it started or saw finished, whether its sweep runs, and when to
    /// ask again for a day another process holds.
    private final class Days: Sendable {
        struct State {
            var done: String?
            var running = false
            var askAgain: (day: String, at: Date)?
        }
        let state = Mutex(State())
    }

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
        let today = RiskBaselineJob.day(of: sweep.clock.now())
        days.state.withLock { $0.done = today }
        try await prepare()
        return try await sweep.run(ruleSet, dryRun: false)
    }

    /// Claims today's (UTC) sweep for `owner`, unless this process started it (or saw it finished) already, its own
    /// sweep still runs (a sweep past midnight), or another process held it when last asked less than
    /// ``askAgainAfter`` ago: the continuous refresher asks after each pass and, given the day, starts
    /// ``runClaimed(day:owner:)`` beside it. A day another process holds is asked for again, so that it is taken over
    /// when that process stops renewing it.
    public func claimToday(owner: String) async throws -> String? {
        let now = sweep.clock.now()
        let today = RiskBaselineJob.day(of: now)
        let ask = days.state.withLock { state in
            guard !state.running, state.done != today else { return false }
            if let wait = state.askAgain, wait.day == today, now < wait.at { return false }
            return true
        }
        guard ask else { return nil }
        let claim = try await sweep.store.claimKeySweepDay(today, owner: owner, at: now, staleBefore: now.addingTimeInterval(-Self.staleAfter))
        return days.state.withLock { state in
            switch claim {
            case .claimed:
                state.done = today
                state.running = true
                return today
            case .finished:
                state.done = today
                return nil
            case .heldElsewhere:
                state.askAgain = (today, now.addingTimeInterval(Self.askAgainAfter))
                return nil
            }
        }
    }

    /// Sweeps every app as `day`'s sweep, claimed by ``claimToday(owner:)``, renewing the claim between pages. A sweep
    /// that ends with every app swept finishes the day; one that failed, or left an app unswept, gives the claim up so
    /// that another process tries (this one does not try the day again). One whose claim another process took over
    /// stops (``KeySweepStopped``), and a cancelled one (the process stopping) leaves the day to another process after
    /// ``staleAfter``.
    /// - Parameter pageSize: Keys read per store round trip (``KeySweep/pageSize`` but in tests).
    @discardableResult
    public func runClaimed(day: String, owner: String, pageSize: Int = KeySweep.pageSize) async throws -> KeySweepReport {
        let (store, clock) = (sweep.store, sweep.clock)
        defer { days.state.withLock { $0.running = false } }
        // The first page renews: a claim taken over before the sweep began is found out at once.
        let lastRenewal = Mutex(Date.distantPast)
        let renew: @Sendable () async throws -> Void = {
            let now = clock.now()
            guard lastRenewal.withLock({ now.timeIntervalSince($0) >= Self.renewEvery }) else { return }
            lastRenewal.withLock { $0 = now }
            // A renewal the store does not answer is tried again after the next page; the claim holds meanwhile.
            guard let held = try? await store.renewKeySweepDay(day, owner: owner, at: now) else { return }
            if !held { throw KeySweepStopped(description: "another process took the sweep of \(day) over") }
        }
        let report: KeySweepReport
        do {
            try await prepare()
            report = try await sweep.run(ruleSet, dryRun: false, pageSize: pageSize, betweenPages: renew)
        } catch let error as KeySweepStopped {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            try? await store.releaseKeySweepDay(day, owner: owner)
            throw error
        }
        if report.apps.contains(where: { $0.error != nil }) {
            try? await store.releaseKeySweepDay(day, owner: owner)
        } else {
            // Retried: a finish that is lost leaves the day to be swept again once the claim is stale.
            for attempt in 1...3 {
                do {
                    try await store.finishKeySweepDay(day, owner: owner, at: clock.now())
                    break
                } catch where attempt < 3 {
                    continue
                } catch {
                    sweep.logger.warning("key sweep finished; marking its day finished failed", metadata: [
                        "day": .string(day), "error": .string(String(describing: error)),
                    ])
                }
            }
        }
        return report
    }
}
