public import Foundation
public import RiskRules
import Synchronization
import AttestGuardStore

/// The sweep as the receipt refresh runs it (``ReceiptRefreshScheduler/sweep``): at the end of `attestguard receipts
/// refresh`, and in `serve`'s continuous refresher once a UTC day for all the processes sharing the store (the one that
/// claims the day, ``KeySweepClaimStore``), beside the refresh (which goes on), started after the day's first pass and
/// its baselines, so that the rules read the risk metrics the refresh just stored. A day's sweep is tried once per
/// process: one that fails as a whole, or whose process stops, gives the claim up for another process to try; one
/// whose process dies before it finishes is taken over once its claim has gone unrenewed for ``staleAfter``.
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

    /// What this process knows of the days: the last it claimed or saw finished, when its running sweep last showed
    /// progress (claimed, or ended a page), and when to ask again for a day another process holds.
    private final class Days: Sendable {
        struct State {
            var done: String?
            var sweepProgressAt: Date?
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

    /// Sweeps every app now, whoever swept today; it claims no day and marks none.
    @discardableResult
    public func run() async throws -> KeySweepReport {
        try await prepare()
        return try await sweep.run(ruleSet, dryRun: false)
    }

    /// Claims today's (UTC) sweep for `owner`, unless this process started it (or saw it finished) already, its own
    /// sweep still runs and made progress within ``staleAfter`` (a sweep past midnight; one stuck longer does not hold
    /// the next day back), or another process held it when last asked less than ``askAgainAfter`` ago: the continuous refresher asks after each pass and, given the day, starts
    /// ``runClaimed(day:owner:)`` beside it. A day another process holds is asked for again, so that it is taken over
    /// when that process stops renewing it.
    public func claimToday(owner: String) async throws -> String? {
        let now = sweep.clock.now()
        let today = RiskBaselineJob.day(of: now)
        let ask = days.state.withLock { state in
            if let progress = state.sweepProgressAt, now.timeIntervalSince(progress) < Self.staleAfter { return false }
            guard state.done != today else { return false }
            if let wait = state.askAgain, wait.day == today, now < wait.at { return false }
            return true
        }
        guard ask else { return nil }
        let claim = try await sweep.store.claimKeySweepDay(today, owner: owner, at: now, staleBefore: now.addingTimeInterval(-Self.staleAfter))
        return days.state.withLock { state in
            switch claim {
            case .claimed:
                state.done = today
                state.sweepProgressAt = now
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
    /// that ends finishes the day, also when an app could not be swept (``KeySweepReport/App/error``, logged), so that
    /// a failure that recurs costs one sweep a day, not one per process. One that fails as a whole (the lists or the
    /// baselines it reads first, an unknown app) or is cancelled (the process stopping) gives the claim up, so that
    /// another process tries the day at once; this one does not try it again. One whose claim another process took
    /// over stops (``KeySweepStopped``).
    /// - Parameter pageSize: Keys read per store round trip (``KeySweep/pageSize`` but in tests).
    @discardableResult
    public func runClaimed(day: String, owner: String, pageSize: Int = KeySweep.pageSize) async throws -> KeySweepReport {
        let (store, clock) = (sweep.store, sweep.clock)
        defer { days.state.withLock { $0.sweepProgressAt = nil } }
        // The first page's end renews: a claim taken over before the sweep began is found out there.
        let lastRenewal = Mutex(Date.distantPast)
        let days = self.days
        let renew: @Sendable () async throws -> Void = {
            let now = clock.now()
            days.state.withLock { if $0.sweepProgressAt != nil { $0.sweepProgressAt = now } }
            let due = lastRenewal.withLock { last in
                guard now.timeIntervalSince(last) >= Self.renewEvery else { return false }
                last = now
                return true
            }
            guard due else { return }
            // A renewal the store does not answer is tried again at the next page a minute later; the claim holds
            // meanwhile.
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
            // In a task of its own: this one is cancelled, and the release should still reach the store.
            await Task { try? await store.releaseKeySweepDay(day, owner: owner) }.value
            throw CancellationError()
        } catch {
            try? await store.releaseKeySweepDay(day, owner: owner)
            throw error
        }
        // Retried a second apart: a finish that is lost leaves the day to be swept again once the claim is stale.
        for attempt in 1...3 {
            do {
                try await store.finishKeySweepDay(day, owner: owner, at: clock.now())
                break
            } catch where attempt < 3 {
                try? await clock.sleep(until: clock.now().addingTimeInterval(1))
            } catch {
                sweep.logger.warning("key sweep finished; marking its day finished failed", metadata: [
                    "day": .string(day), "error": .string(String(describing: error)),
                ])
            }
        }
        return report
    }
}
